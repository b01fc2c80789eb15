import Foundation
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// A node under attack from raw TCP clients keeps serving its good peer: every bad connection is
    /// closed (after an `error` frame with the code protocol.md prescribes), a client without the secret
    /// never receives a frame beyond `welcome`, the node's replica does not change, and the good peer
    /// still converges with it. Real TCP on 127.0.0.1, ephemeral ports, every wait bounded.
    @Suite("Adversarial peers")
    struct AdversarialPeerTests {
        /// What a raw client saw of one connection.
        struct Conversation {
            var label: String
            var frames: [Frame]
            var end: AdversaryClient.End
            var elapsed: Duration
        }

    }
}
