import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryWire
import Synchronization

/// The newcomer's side of a join (`gallery serve DIR --join CODE`; protocol.md, "Joining"): it
/// dials the inviter at the code's addresses, runs the handshake with the invitation's PSK,
/// refuses any node but the one the code names (before proving the PSK), sends its `identity`
/// and `join_request`, and takes the `join_grant`: the space's secret, ID and member records.
/// Blocking; the inviter's handshake deadline and silence limit bound every wait.
package enum JoinClient {
    /// What a join brings.
    package struct Grant: Sendable {
        package var keys: SpaceKeys
        package var records: [MemberRecord]
        /// The address the inviter answered at, and its node ID (pinned there).
        package var inviter: Endpoint
        package var inviterNode: NodeID
    }

    /// Why a join failed.
    package enum Failure: Error, LocalizedError {
        case unreachable([String])
        case refused(String)
        case wrongNode(String)
        case protocolFailure(String)

        package var errorDescription: String? {
            switch self {
            case .unreachable(let tries): "cannot reach the inviter: \(tries.joined(separator: "; "))"
            case .refused(let why): "the inviter refused the join: \(why)"
            case .wrongNode(let why): "not the inviter: \(why)"
            case .protocolFailure(let why): "the join failed: \(why)"
            }
        }
    }

    /// The longest a join waits on one inviter address once connected.
    package static let deadline: TimeInterval = 20

    /// Joins the space of `code` as the node whose static key is `staticKey`, named `name`.
    package static func join(code: InvitationCode, staticKey: X25519.PrivateKey, name: String,
                             deadline: TimeInterval = JoinClient.deadline) throws(Failure) -> Grant {
        guard let inviterKey = try? X25519.PublicKey(rawRepresentation: code.inviterKey) else {
            throw .protocolFailure("the code's inviter key is not a valid X25519 key")
        }
        var tries: [String] = []
        for address in code.addresses {
            let endpoint = Endpoint(host: address.host, port: address.port)
            let streams: StreamPair
            do {
                streams = try Connector.connect(to: endpoint, timeout: .seconds(5))
            } catch {
                tries.append("\(endpoint): \(error.localizedDescription)")
                continue
            }
            defer { streams.close() }
            // The exchange runs on its own thread, bounded: an inviter that stops answering is
            // given up (its streams closed) after `deadline`.
            let outcome = Mutex<Result<Grant, Failure>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let result: Result<Grant, Failure>
                do {
                    var grant = try exchange(on: streams, code: code, inviterKey: inviterKey, staticKey: staticKey, name: name)
                    grant.inviter = endpoint
                    result = .success(grant)
                } catch let failure as Failure {
                    result = .failure(failure)
                } catch JoinLink.Ended.ended {
                    result = .failure(.refused("the inviter closed the connection during the handshake"))
                } catch {
                    result = .failure(.protocolFailure("\(error)"))
                }
                outcome.withLock { $0 = result }
                done.signal()
            }
            if done.wait(timeout: .now() + deadline) == .timedOut {
                streams.close()
                throw .protocolFailure("no answer from the inviter within \(Int(deadline)) s")
            }
            guard let result = outcome.withLock({ $0 }) else { throw .protocolFailure("the join ended without an outcome") }
            return try result.get()
        }
        throw .unreachable(tries)
    }

    private static func exchange(on streams: StreamPair, code: InvitationCode, inviterKey: X25519.PublicKey,
                                 staticKey: X25519.PrivateKey, name: String) throws -> Grant {
        var settings = HandshakeSettings(secret: code.secret, staticKey: staticKey, replica: ReplicaID(UInt64.random(in: 1...UInt64.max)), name: name)
        settings.keyring = InvitationKeyring(presharedKey: InvitationCode.presharedKey(secret: code.secret))
        var link = JoinLink(streams: streams)
        var handshake = ClientHandshake(settings: settings, expectedNode: NodeID(key: inviterKey))
        for message in try handshake.start() { link.send(message) }
        let result: HandshakeResult
        do {
            guard case .finish(let third, let finished) = try handshake.receive(try link.receive()) else {
                throw Failure.protocolFailure("the handshake did not finish")
            }
            link.send(third)
            result = finished
        } catch let failure as HandshakeFailure {
            if failure.code == .identityMismatch { throw Failure.wrongNode(failure.reason) }
            throw Failure.refused("\(failure.code): \(failure.reason)")
        }
        guard result.remoteKey == inviterKey else { throw Failure.wrongNode("the node's key is not the code's") }
        link.startRecords(result)
        link.send(.identity(settings.info(version: result.version)))
        link.send(.membership(.joinRequest(signingKey: OpSigning.signingKey(fromNodeKey: staticKey).publicKey.rawRepresentation)))
        while true {
            let message: Message
            do {
                message = try link.receive()
            } catch JoinLink.Ended.ended {
                throw Failure.refused("the inviter closed the connection without an answer")
            }
            switch message {
            case .identity, .heartbeat, .features, .addresses, .versionDigest: continue
            case .error(let code, let text):
                throw Failure.refused(code == .authFailed ? text : "\(code): \(text)")
            case .membership(.joinGrant(let secret, let generation, let space, let records)):
                guard space == code.space else {
                    throw Failure.protocolFailure("the inviter sent another space's ID than the code's")
                }
                return Grant(keys: SpaceKeys(secret: secret, generation: generation, previous: nil, space: space),
                             records: records, inviter: Endpoint(host: "", port: 0), inviterNode: NodeID(key: inviterKey))
            case .membership: continue
            default:
                throw Failure.protocolFailure("\(message.type) before the join's grant")
            }
        }
    }
}

/// The single key a join's handshake proves.
final class InvitationKeyring: HandshakeKeyring {
    let dialingKey: [UInt8]
    var acceptedKeys: [(HandshakeAuthority, [UInt8])] { [] }

    init(presharedKey: [UInt8]) {
        dialingKey = presharedKey
    }
}

/// The frames of one join connection over blocking streams: clear during the handshake, sealed
/// records after it.
private struct JoinLink {
    enum Ended: Error { case ended }

    let streams: StreamPair
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.defaultMaximum))
    private var sealer: RecordSealer?
    private var opener: RecordOpener?
    private var pending: [Frame] = []

    init(streams: StreamPair) {
        self.streams = streams
    }

    mutating func startRecords(_ result: HandshakeResult) {
        sealer = RecordSealer(result.sending)
        opener = RecordOpener(result.receiving, maximumPayload: Int(FrameLimits.defaultMaximum))
    }

    mutating func send(_ message: Message) {
        let bytes = message.frame.encoded
        guard var sealer else {
            streams.output.writeAll(bytes)
            return
        }
        if let records = try? sealer.seal(bytes) { streams.output.writeAll(records) }
        self.sealer = sealer
    }

    mutating func receive() throws -> Message {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if !pending.isEmpty {
                let frame = pending.removeFirst()
                if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { continue }
                return try Message(frame: frame)
            }
            if let frame = try decoder.next() {
                if var opener, frame.knownType == .record {
                    pending += try opener.open(frame.payload)
                    self.opener = opener
                    continue
                }
                return try Message(frame: frame)
            }
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { throw Ended.ended }
            decoder.append(Array(buffer[..<count]))
        }
    }
}
