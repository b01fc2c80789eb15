import Foundation
import GalleryIO
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A refused connection receives the error frame before the close", arguments: [
        ("4 GiB - 1 header", [0xFF, 0xFF, 0xFF, 0xFF, FrameType.ops.rawValue, 0x00], ErrorCode.frameTooLarge),
        ("ops before the handshake", Message.ops([]).frame.encoded, ErrorCode.protocolError),
        ("fetch before the handshake", Message.fetch(FetchRequest(id: 1, hash: Array(repeating: 7, count: 32), offset: 0, length: 0))
            .frame.encoded, ErrorCode.protocolError),
        ("control request before the handshake", Message.controlRequest(Array(#"{"id":1,"command":"galleries"}"#.utf8))
            .frame.encoded, ErrorCode.protocolError),
    ] as [(String, [UInt8], ErrorCode)])
    func errorFrameBeforeClose(name: String, bytes: [UInt8], code: ErrorCode) throws {
        let cluster = try TestCluster(["alpha"])
        defer { cluster.stop() }
        let endpoint = try #require(cluster.nodes[0].endpoint)
        var withError = 0
        var ends: [String: Int] = [:]
        let attempts = 20
        for _ in 0..<attempts {
            let talk = try Self.converse(name, endpoint) { peer in peer.send(bytes) }
            #expect(talk.end.isClosedByPeer, "\(talk.end)")
            #expect(talk.frames.allSatisfy { $0.knownType == .error })
            if Self.errorCode(talk.frames.last) == code { withError += 1 }
            ends["\(talk.end)", default: 0] += 1
        }
        print("AdversarialPeer: \(name): error \(code) received on \(withError) of \(attempts) connections; ends \(ends)")
        #expect(withError == attempts, "\(name): the node sent error \(code) before closing on only \(withError) of \(attempts) connections")
    }
}
