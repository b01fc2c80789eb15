import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire

/// A replica whose ops are signed (`OpSignatures`), as a node with this key and salt makes them
/// in the space of `secret`.
struct SignedReplicaFixture {
    static let secret = Array("test secret of the space".utf8)
    let nodeKey: X25519.PrivateKey
    let salt: UInt64
    var replica: Replica

    init(seed: UInt8, salt: UInt64 = 7, secret: [UInt8] = Self.secret) {
        // Cannot throw: 32 bytes.
        nodeKey = try! X25519.PrivateKey(rawRepresentation: SHA256.hash([seed]))
        self.salt = salt
        let configuration = Self.configuration(nodeKey: nodeKey, salt: salt, secret: secret)
        let id = ReplicaBinding(secret: secret, nodeKey: nodeKey).replicaID(salt: salt)
        replica = Replica(id: id).signing(with: configuration)
    }

    static func configuration(nodeKey: X25519.PrivateKey, salt: UInt64, secret: [UInt8] = Self.secret) -> NodeConfiguration {
        var configuration = NodeConfiguration(name: "signed", secret: secret, staticKey: nodeKey)
        configuration.replicaSalt = salt
        return configuration
    }

    var signatures: OpSignatures { replica.authenticator as! OpSignatures }

    /// Checks a frame of ops from `source` as the node does, then gives what passed to the replica.
    /// Returns the forged reason, if any, and the outcomes of the ops given to the replica.
    mutating func receive(_ ops: [Op], from source: Int = 1) -> (forged: String?, outcomes: [ReceiveOutcome]) {
        let checked = replica.checkSignatures(frame: ops, from: source) ?? OpSignatures.FrameCheck(ops: ops, forged: nil)
        return (checked.forged?.reason, checked.ops.map { replica.receive($0, from: source) })
    }
}
