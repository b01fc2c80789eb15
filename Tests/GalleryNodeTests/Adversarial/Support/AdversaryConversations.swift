import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GallerySimulation
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    /// Connects, runs `script`, then reads until A closes the connection (or the deadline).
    static func converse(_ label: String, _ endpoint: Endpoint, expectWelcome: Bool = false, closeAfter: Bool = false,
                         _ script: (AdversaryClient) throws -> Void) throws -> Conversation {
        let started = ContinuousClock.now
        let peer = try AdversaryClient(endpoint, deadline: .seconds(8))
        try script(peer)
        if closeAfter {
            peer.close()
            return Conversation(label: label, frames: peer.frames, end: .eof, elapsed: ContinuousClock.now - started)
        }
        return finish(peer, label: label, started: started)
    }

    static func finish(_ peer: AdversaryClient, label: String, started: ContinuousClock.Instant) -> Conversation {
        _ = peer.readToEnd()
        let elapsed = ContinuousClock.now - started
        peer.close()
        return Conversation(label: label, frames: peer.frames, end: peer.end ?? .timeout, elapsed: elapsed)
    }

    /// A valid opening of a client (`hello`, then Noise message 1); `replica` is unused since
    /// version 3 (who the client is travels sealed).
    static func hello(replica: ReplicaID) -> [UInt8] {
        var handshake = ClientHandshake(settings: settings("raw", replica: replica))
        return ((try? handshake.start()) ?? []).flatMap(\.frame.encoded)
    }

    /// The settings of a hand-driven client with the space's secret (or `secret`).
    static func settings(_ name: String, replica: ReplicaID, secret: [UInt8] = TestCluster.secret) -> HandshakeSettings {
        HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: replica, name: name)
    }

    static func garbage(seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        return (0..<Int.random(in: 16...2_048, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// The first `count` seeds from 1 whose garbage (after `prefix`) A must refuse at once.
    static func garbageSeeds(count: Int, server: ReplicaID, after prefix: [UInt8]) -> [UInt64] {
        var seeds: [UInt64] = []
        var seed: UInt64 = 1
        while seeds.count < count {
            if case .error = predict(prefix + garbage(seed: seed), server: server) { seeds.append(seed) }
            seed += 1
        }
        return seeds
    }

    /// 1 to 4 frames with a random type (known or not), flags (mostly 0 or ignorable) and payload.
    static func randomFrames(seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let type = Bool.random(using: &random)
                ? FrameType.allCases.randomElement(using: &random)!.rawValue : UInt8.random(in: 0...255, using: &random)
            let flags: UInt8 = switch Int.random(in: 0..<20, using: &random) {
            case 0..<12: 0
            case 12..<17: Frame.ignorableFlag
            default: UInt8.random(in: 0...255, using: &random)
            }
            let payload = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes += Frame(rawType: type, flags: flags, payload: payload).encoded
        }
        return bytes
    }

    /// For each outcome other than frame_too_large, the first seed from 1 of `randomFrames` that reaches it.
    static func randomFrameSeeds(server: ReplicaID) -> [(UInt64, Prediction)] {
        var found: [(UInt64, Prediction)] = []
        for wanted in [Prediction.error(.protocolError), .error(.unknownFrameType)] {
            var seed: UInt64 = 1
            while predict(randomFrames(seed: seed), server: server) != wanted { seed += 1 }
            found.append((seed, wanted))
        }
        return found
    }

    /// What protocol.md says a server does with these bytes from a new client.
    enum Prediction: Equatable {
        /// Sends `error` with this code and closes.
        case error(ErrorCode)
        /// Closes without an error frame (the client sent `error`).
        case close
        /// Waits for more bytes.
        case incomplete
    }

    static func predict(_ bytes: [UInt8], server: ReplicaID) -> Prediction {
        var decoder = FrameDecoder()
        var handshake = ServerHandshake(settings: HandshakeSettings(
            secret: Array("model".utf8), staticKey: X25519.PrivateKey(), replica: server, name: "model"))
        decoder.append(bytes)
        do {
            while let frame = try decoder.next() {
                if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { continue }
                if (0x02...0x04).contains(frame.type) { return .error(.unsupportedVersion) }
                let message = try Message(frame: frame)
                if case .error = message { return .close }
                _ = try handshake.receive(message)
            }
            return .incomplete
        } catch let error as WireError {
            switch error {
            case .frameTooLarge: return .error(.frameTooLarge)
            case .unknownFrameType: return .error(.unknownFrameType)
            case .malformed, .unexpected: return .error(.protocolError)
            case .rejectedOp: return .error(.rejectedOp)
            }
        } catch let failure as HandshakeFailure {
            return .error(failure.code)
        } catch {
            return .error(.internalError)
        }
    }
}
