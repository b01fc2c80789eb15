import GalleryCrypto
import GalleryModel
@testable import GalleryWire
import Testing

/// `version_digest` (protocol.md, section 5): its digest is the documented hash of the vector's
/// `sync_request` encoding, and payloads outside the three kinds are refused.
@Suite struct VersionDigestTests {
    @Test func digestIsTheHashOfTheSyncRequestPayload() throws {
        let version = VersionVector([ReplicaID(1): 3, ReplicaID(2): 300])
        let payload = Message.syncRequest(version).frame.payload
        #expect(VersionDigest.of(version) == Array(SHA256.hash(payload).prefix(16)))
        #expect(VersionDigest.of(version) != VersionDigest.of(VersionVector([ReplicaID(1): 3, ReplicaID(2): 301])))
        // The digest does not grow with the vector.
        let large = VersionVector(Dictionary(uniqueKeysWithValues: (1...500).map { (ReplicaID(UInt64($0)), UInt64($0)) }))
        #expect(Message.versionDigest(.digest(VersionDigest.of(large))).frame.encodedSize == 23)
    }

    @Test func malformedPayloadsAreRefused() {
        for payload: [UInt8] in [[], [3], [1] + Array(repeating: 0, count: 15), [0, 0], [2, 1]] {
            #expect(throws: WireError.self, "\(payload)") {
                _ = try Message(frame: Frame(.versionDigest, flags: Frame.ignorableFlag, payload: payload))
            }
        }
    }
}
