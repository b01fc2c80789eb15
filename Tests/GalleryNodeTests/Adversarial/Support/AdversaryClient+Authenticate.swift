import GalleryIO
import GalleryModel
import GalleryWire
import Testing

extension AdversaryClient {
    /// A client that has completed the handshake with the node at `endpoint` as a peer named
    /// `name`; nil (with an issue recorded) when the node did not authenticate it.
    static func authenticated(to endpoint: Endpoint, secret: [UInt8], replica: ReplicaID, name: String,
                              deadline: Duration) throws -> AdversaryClient? {
        let client = try AdversaryClient(endpoint, deadline: deadline)
        var handshake = ClientHandshake(settings: HandshakeSettings(secret: secret, replica: replica, name: name))
        client.send(handshake.hello)
        let welcome = try #require(client.nextFrame().flatMap { try? Message(frame: $0) })
        guard case .send(let auth) = try handshake.receive(welcome) else {
            Issue.record("no auth")
            return nil
        }
        client.send(auth)
        let ok = try #require(client.nextFrame().flatMap { try? Message(frame: $0) })
        guard case .done = try handshake.receive(ok) else {
            Issue.record("not authenticated")
            return nil
        }
        return client
    }
}
