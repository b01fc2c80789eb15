import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryWire
import Testing

extension AdversaryClient {
    /// A client that has completed the handshake (version 3: Noise, then the sealed identity)
    /// with the node at `endpoint` as a peer named `name`, under a fresh static key; nil (with an
    /// issue recorded) when the node did not authenticate it.
    static func authenticated(to endpoint: Endpoint, secret: [UInt8], replica: ReplicaID, name: String,
                              deadline: Duration) throws -> AdversaryClient? {
        let client = try AdversaryClient(endpoint, deadline: deadline)
        let settings = HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: replica, name: name)
        guard client.authenticate(settings) else {
            Issue.record("not authenticated")
            return nil
        }
        return client
    }
}
