import GalleryCrypto
import GalleryModel
import GalleryWire

/// The replica IDs a node may make ops under: bound to its signing key in its space
/// (`OpSigning.replicaID`), one per salt. What the composition needs of signed ops.
package struct ReplicaBinding: Sendable {
    let space: [UInt8]
    let publicKey: [UInt8]

    /// The binding of the node whose key is `nodeKey` in the space of `secret`.
    package init(secret: [UInt8], nodeKey: X25519.PrivateKey) {
        space = OpSigning.spaceID(ofSecret: secret)
        publicKey = OpSigning.signingKey(fromNodeKey: nodeKey).publicKey.rawRepresentation
    }

    /// The binding of the node whose key is `nodeKey` in the space `space` (its ID).
    package init(space: [UInt8], nodeKey: X25519.PrivateKey) {
        self.space = space
        publicKey = OpSigning.signingKey(fromNodeKey: nodeKey).publicKey.rawRepresentation
    }

    /// The replica ID of `salt`.
    package func replicaID(salt: UInt64) -> ReplicaID {
        OpSigning.replicaID(space: space, publicKey: publicKey, salt: salt)
    }
}
