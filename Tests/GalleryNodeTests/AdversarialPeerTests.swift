import Foundation
import GallerySimulation
import GalleryIO
import GalleryModel
import GalleryNode
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

        @Test("A node survives garbage, oversize frames, bad handshakes, replays and a connection flood, and keeps serving B")
        func survivesBadClients() throws {
            let cluster = try TestCluster(["alpha", "beta"], peers: [1: [0]])
            defer { cluster.stop() }
            let a = cluster.nodes[0]
            let b = cluster.nodes[1]
            let endpoint = try #require(a.endpoint)
            let aID = a.read { $0.id }
            try a.perform { try $0.createGallery("g") }
            try #require(cluster.waitForConvergence(timeout: .seconds(10)))
            try b.perform { try $0.insert([.titled("from beta")], into: "g", at: 0) }
            try #require(cluster.waitForConvergence(timeout: .seconds(10)))
            try #require(Self.waitUntil(.seconds(10)) { a.peers.contains { $0.name == "beta" && $0.state == .live } })

            var survived = 0
            var round = 0
            var timings: [String] = []
            /// Runs one attack: A's replica must not change, and B must still exchange ops with A afterwards.
            func attack(_ label: String, _ body: () throws -> Void) rethrows {
                let before = a.read { $0.version }
                let started = ContinuousClock.now
                try body()
                timings.append("\(label): \(ContinuousClock.now - started)")
                #expect(a.read { $0.version } == before, "\(label): A's replica changed")
                survived += 1
                round += 1
                Self.expectServing(cluster, label: label, round: round)
            }

            // 1. Random garbage, chosen (deterministically) among seeds whose outcome is decided by the
            //    bytes alone; the expected code comes from a model of the protocol (`predict`).
            var garbageCodes: [ErrorCode] = []
            for seed in Self.garbageSeeds(count: 4, server: aID, after: []) {
                let bytes = Self.garbage(seed: seed)
                guard case .error(let code) = Self.predict(bytes, server: aID) else { continue }
                garbageCodes.append(code)
                try attack("garbage seed \(seed)") {
                    let talk = try Self.converse("garbage seed \(seed)", endpoint) { peer in peer.send(bytes) }
                    Self.expectRefused(talk, code: code)
                }
            }
            #expect(garbageCodes.count == 4)
            // Random frames (a plausible header, random type, flags and payload): the first seeds that
            // reach protocol_error and unknown_frame_type; then an ignorable unknown frame and an
            // `error` frame from the client, which A answers by closing without an error of its own.
            var randomFrameCases = Self.randomFrameSeeds(server: aID).map { seed, outcome in
                ("random frames seed \(seed) (\(outcome))", Self.randomFrames(seed: seed), outcome)
            }
            let clientError = Frame(rawType: 0x77, flags: Frame.ignorableFlag, payload: [1]).encoded
                + Message.error(code: .shuttingDown, message: "bye").frame.encoded
            randomFrameCases.append(("ignorable frame then error from the client", clientError, .close))
            #expect(Self.predict(clientError, server: aID) == .close)
            for (name, bytes, outcome) in randomFrameCases {
                try attack(name) {
                    let talk = try Self.converse(name, endpoint) { peer in peer.send(bytes) }
                    if case .error(let code) = outcome {
                        garbageCodes.append(code)
                        Self.expectRefused(talk, code: code)
                    } else {
                        Self.expectRefused(talk, code: nil)
                    }
                }
            }

            // 2. A header announcing a 2 GiB frame: refused from the header alone.
            try attack("2 GiB header") {
                let talk = try Self.converse("2 GiB header", endpoint) { peer in
                    peer.send([0x00, 0x00, 0x00, 0x80, FrameType.hello.rawValue, 0x00] + [UInt8](repeating: 0x47, count: 1_024))
                }
                Self.expectRefused(talk, code: .frameTooLarge)
            }
            try attack("4 GiB - 1 ops header") {
                let talk = try Self.converse("4 GiB - 1 ops header", endpoint) { peer in
                    peer.send([0xFF, 0xFF, 0xFF, 0xFF, FrameType.ops.rawValue, 0x00])
                }
                Self.expectRefused(talk, code: .frameTooLarge)
            }

            // 3. A valid hello, then garbage (read the welcome first, then send the garbage).
            let hello = Self.hello(replica: ReplicaID(0xBAD0_0001))
            for seed in Self.garbageSeeds(count: 2, server: aID, after: hello) {
                let bytes = Self.garbage(seed: seed)
                guard case .error(let code) = Self.predict(hello + bytes, server: aID) else { continue }
                try attack("hello then garbage seed \(seed)") {
                    let talk = try Self.converse("hello then garbage seed \(seed)", endpoint, expectWelcome: true) { peer in
                        peer.send(hello)
                        guard peer.nextFrame()?.knownType == .welcome else { return }
                        peer.send(bytes)
                    }
                    Self.expectRefused(talk, code: code, welcome: true)
                }
            }
            // Specific bad frames after a hello: reserved flag bits, an unknown type without the
            // ignorable flag, and an ignorable unknown frame (skipped) followed by a second hello.
            let afterHello: [(String, [UInt8], ErrorCode)] = [
                ("reserved flags", Frame(rawType: FrameType.auth.rawValue, flags: 0x04, payload: Array(repeating: 1, count: 32)).encoded,
                 .protocolError),
                ("unknown type", Frame(rawType: 0x7F, flags: 0, payload: [1, 2]).encoded, .unknownFrameType),
                ("ignorable frame then a second hello", Frame(rawType: 0x7E, flags: Frame.ignorableFlag, payload: [9]).encoded + hello,
                 .protocolError),
                ("heartbeat before auth", Message.heartbeat.frame.encoded, .protocolError),
                ("sync_request before auth", Message.syncRequest(VersionVector()).frame.encoded, .protocolError),
                ("short auth proof", Frame(.auth, payload: Array(repeating: 7, count: 31)).encoded, .protocolError),
            ]
            for (name, bytes, code) in afterHello {
                #expect(Self.predict(hello + bytes, server: aID) == .error(code), "model disagrees on \(name)")
                try attack("hello then \(name)") {
                    let talk = try Self.converse("hello then \(name)", endpoint, expectWelcome: true) { peer in
                        peer.send(hello)
                        guard peer.nextFrame()?.knownType == .welcome else { return }
                        peer.send(bytes)
                    }
                    Self.expectRefused(talk, code: code, welcome: true)
                }
            }

            // 4. ops (and other frames) before any handshake.
            let goldenOps = Message.ops([
                Op(id: OpID(counter: 1, replica: ReplicaID(0xBAD0_0002)), previous: 0, action: .createGallery(name: "intruder")),
            ]).frame.encoded
            let beforeHandshake: [(String, [UInt8], ErrorCode)] = [
                ("ops before the handshake", goldenOps, .protocolError),
                ("auth before hello", Message.auth(proof: Array(repeating: 1, count: 32)).frame.encoded, .protocolError),
                ("authOK to a server", Message.authOK(proof: Array(repeating: 1, count: 32)).frame.encoded, .protocolError),
                ("caught_up before the handshake", Message.caughtUp(VersionVector([ReplicaID(3): 4])).frame.encoded, .protocolError),
            ]
            for (name, bytes, code) in beforeHandshake {
                try attack(name) {
                    let talk = try Self.converse(name, endpoint) { peer in peer.send(bytes) }
                    Self.expectRefused(talk, code: code)
                }
            }

            // 5. Bad hellos: wrong magic, no common version, A's own replica ID, version 1 only.
            var wrongMagic = hello
            wrongMagic[6] = UInt8(ascii: "X")
            let badHellos: [(String, [UInt8], ErrorCode)] = [
                ("hello with a wrong magic", wrongMagic, .protocolError),
                ("hello with no common version", Message.hello(Hello(
                    versions: [3, 4], replica: ReplicaID(0xBAD0_0003), nonce: HandshakeSettings.makeNonce(),
                    maximumFrameSize: 1 << 20, name: "future")).frame.encoded, .unsupportedVersion),
                ("hello with A's own replica ID", Self.hello(replica: aID), .duplicateConnection),
                // Version 1 had no frame checksums: refused, so that no one can downgrade a link.
                ("hello of a version 1 peer", Message.hello(Hello(
                    versions: [1], replica: ReplicaID(0xBAD0_0007), nonce: HandshakeSettings.makeNonce(),
                    maximumFrameSize: 1 << 20, name: "old")).frame.encoded, .unsupportedVersion),
            ]
            for (name, bytes, code) in badHellos {
                try attack(name) {
                    let talk = try Self.converse(name, endpoint) { peer in peer.send(bytes) }
                    Self.expectRefused(talk, code: code)
                }
            }

            // 6. A complete handshake with the wrong secret.
            try attack("wrong secret") {
                let settings = HandshakeSettings(secret: Array("not the secret".utf8), replica: ReplicaID(0xBAD0_0004), name: "mallory")
                var handshake = ClientHandshake(settings: settings)
                let talk = try Self.converse("wrong secret", endpoint, expectWelcome: true) { peer in
                    peer.send(handshake.hello)
                    guard let frame = peer.nextFrame(), let welcome = try? Message(frame: frame),
                          case .send(let auth)? = try? handshake.receive(welcome) else { return }
                    peer.send(auth)
                }
                Self.expectRefused(talk, code: .authFailed, welcome: true)
            }

            // 7. A replayed auth proof, recorded from an earlier successful handshake.
            let recorderSettings = HandshakeSettings(secret: TestCluster.secret, replica: ReplicaID(0xBAD0_0005), name: "recorder")
            var recorder = ClientHandshake(settings: recorderSettings)
            let recordedHello = recorder.hello.frame.encoded
            var recordedAuth: [UInt8]?
            let honest = try Self.converse("recorder", endpoint, closeAfter: true) { peer in
                peer.send(recordedHello)
                guard let frame = peer.nextFrame(), let welcome = try? Message(frame: frame),
                      case .send(let auth)? = try? recorder.receive(welcome) else { return }
                recordedAuth = auth.frame.encoded
                peer.send(auth)
                guard let okFrame = peer.nextFrame(), let ok = try? Message(frame: okFrame),
                      case .done? = try? recorder.receive(ok) else { return }
            }
            #expect(honest.frames.map(\.knownType).prefix(2) == [.welcome, .authOK], "the honest handshake failed: \(honest)")
            let replayedAuth = try #require(recordedAuth)
            try attack("replayed auth proof") {
                let talk = try Self.converse("replayed auth proof", endpoint, expectWelcome: true) { peer in
                    peer.send(recordedHello)
                    guard peer.nextFrame()?.knownType == .welcome else { return }
                    peer.send(replayedAuth)
                }
                Self.expectRefused(talk, code: .authFailed, welcome: true)
            }

            // 8. Authenticated but misbehaving: a 2 GiB header, a second hello, an op no correct
            //    replica produces (a number as a title). Each is closed; nothing is applied.
            let existing = try a.read { try $0.item(at: 0, in: "g").id }
            let insider = ReplicaID(0xBAD0_0006)
            let insiderMessages: [(String, [UInt8], ErrorCode)] = [
                ("authenticated 2 GiB header", [0x00, 0x00, 0x00, 0x80, FrameType.ops.rawValue, 0x00], .frameTooLarge),
                ("authenticated second hello", Message.hello(Hello(
                    versions: HandshakeSettings.supportedVersions, replica: insider, nonce: HandshakeSettings.makeNonce(),
                    maximumFrameSize: FrameLimits.defaultMaximum, name: "raw")).frame.encoded(checksummed: true), .protocolError),
                ("authenticated rejected op", Message.ops([
                    Op(id: OpID(counter: 1, replica: insider), previous: 0, action: .update(item: existing, field: .title, value: .number(1))),
                ]).frame.encoded(checksummed: true), .rejectedOp),
            ]
            for (index, (name, bytes, code)) in insiderMessages.enumerated() {
                try attack(name) {
                    // A replica ID per connection: A may still be closing the previous one.
                    let replica = ReplicaID(insider.rawValue + UInt64(index))
                    let settings = HandshakeSettings(secret: TestCluster.secret, replica: replica, name: "insider")
                    var handshake = ClientHandshake(settings: settings)
                    let talk = try Self.converse(name, endpoint) { peer in
                        peer.send(handshake.hello)
                        guard let frame = peer.nextFrame(), let welcome = try? Message(frame: frame),
                              case .send(let auth)? = try? handshake.receive(welcome) else { return }
                        peer.send(auth)
                        guard let okFrame = peer.nextFrame(), let ok = try? Message(frame: okFrame),
                              case .done? = try? handshake.receive(ok) else { return }
                        peer.send(bytes)
                    }
                    #expect(talk.end.isClosedByPeer, "\(name): \(talk.end)")
                    let types = talk.frames.map(\.knownType)
                    #expect(types.prefix(2) == [.welcome, .authOK], "\(name): \(types)")
                    #expect(Self.errorCode(talk.frames.last) == code, "\(name): \(Self.describe(talk.frames))")
                }
            }

            // 9. A flood of 200 connections that each send a few bytes and close, while B and A keep
            //    exchanging ops; a slow-loris connection (a partial header, then silence) meanwhile is
            //    closed with `timeout` once the handshake deadline (3 s here) passes.
            let baselineDescriptors = Self.openDescriptors()
            let baselineThreads = Self.threadCount()
            let floodBefore = a.read { $0.version }
            let loris = try AdversaryClient(endpoint, deadline: .seconds(10))
            loris.send([0x39, 0x00, 0x00])
            let lorisStart = ContinuousClock.now
            let lorisResult = AdversaryShared<Conversation?>(nil)
            let traffic = DispatchGroup()
            // The loris is read on its own thread, so that its closing time is measured.
            DispatchQueue.global().async(group: traffic) {
                lorisResult.set(Self.finish(loris, label: "slow loris", started: lorisStart))
            }
            let flood = AdversaryFlood()
            let served = AdversaryShared<[Bool]>([])
            DispatchQueue.global().async(group: traffic) {
                for index in 0..<5 {
                    let op = try? b.perform { try $0.insert([.titled("during flood \(index)")], into: "g", at: 0) }
                    let arrived = op.map { op in a.wait(timeout: .seconds(5)) { $0.contains(op.id) } } ?? false
                    served.update { $0.append(arrived) }
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }
            let floodStart = ContinuousClock.now
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                var random = SeededGenerator(seed: 0xF100D + UInt64(worker))
                for _ in 0..<50 {
                    guard let streams = try? Connector.connect(to: endpoint, timeout: .seconds(2)) else {
                        flood.failed()
                        continue
                    }
                    let bytes = (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    let written = bytes.withUnsafeBufferPointer { streams.output.write($0.baseAddress!, maxLength: $0.count) }
                    streams.close()
                    flood.opened(wrote: written == bytes.count)
                }
            }
            let floodTime = ContinuousClock.now - floodStart
            #expect(traffic.wait(timeout: .now() + 30) == .success)
            #expect(flood.counts.opened == 200, "flood: \(flood.counts)")
            #expect(served.value == Array(repeating: true, count: 5), "B's ops did not all reach A during the flood")
            // Every flood connection is gone from A; descriptors and threads come back.
            let drained = Self.waitUntil(.seconds(10)) { a.peers.count == 1 }
            #expect(drained, "A still lists \(a.peers.count) connections after the flood")
            // Descriptors and threads are counted for the whole process, which other suites share
            // while they run in parallel: reported, not asserted.
            print("flood: descriptors \(baselineDescriptors) -> \(Self.openDescriptors()), threads \(baselineThreads) -> \(Self.threadCount())")
            // Only B's ops were added during the flood.
            #expect(cluster.waitForConvergence(timeout: .seconds(10)))
            #expect(a.read { $0.version } == floodBefore.merged(with: b.read { $0.version }))
            #expect(Set(a.read { $0.version }.counters.keys) == [aID, b.read { $0.id }])
            survived += 200
            round += 1
            Self.expectServing(cluster, label: "after the flood", round: round)
            let lorisTalk = try #require(lorisResult.value)
            // Closed with `timeout` once the handshake deadline (3 s) passed, not before.
            #expect(lorisTalk.end.isClosedByPeer && Self.errorCode(lorisTalk.frames.last) == .timeout, "slow loris: \(Self.describe(lorisTalk.frames))")
            #expect(lorisTalk.frames.allSatisfy { $0.knownType == .error })
            #expect(lorisTalk.elapsed >= .seconds(2.9) && lorisTalk.elapsed < .seconds(6), "slow loris closed after \(lorisTalk.elapsed)")
            survived += 1
            timings.append("flood of 200: \(floodTime); slow loris closed after \(lorisTalk.elapsed)")

            // A's peers: only B, live, the whole time.
            #expect(Self.waitUntil(.seconds(5)) { a.peers.map(\.name) == ["beta"] }, "\(a.peers)")
            #expect(cluster.logged("alpha: connection to beta closed").isEmpty)
            print("AdversarialPeer: A survived \(survived) bad connections (\(flood.counts.opened) flood connections, "
                + "\(flood.counts.partialWrites) partial writes); garbage codes \(garbageCodes); "
                + "descriptors \(baselineDescriptors) -> \(Self.openDescriptors()), threads \(baselineThreads) -> \(Self.threadCount())")
            for line in timings { print("AdversarialPeer: \(line)") }
        }

        @Test("A peer that authenticates but never reads is dropped with slow_peer; A keeps serving B")
        func slowPeerIsDropped() throws {
            let lines = LogLines()
            let log = NodeLog { line in lines.append(line) }
            func configuration(_ name: String, queueLimit: Int) -> NodeConfiguration {
                NodeConfiguration(
                    name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(5),
                    reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), outboundQueueLimit: queueLimit, log: log)
            }
            let a = SyncNode(configuration: configuration("alpha", queueLimit: 64 << 10), replica: Replica(id: ReplicaID(deriving: "alpha")))
            let b = SyncNode(configuration: configuration("beta", queueLimit: 64 << 20), replica: Replica(id: ReplicaID(deriving: "beta")))
            let endpoint = try #require(try a.start())
            try b.start()
            defer {
                b.stop()
                a.stop()
            }
            let aID = a.read { $0.id }
            b.keepConnected(to: endpoint)
            let item = try a.perform { replica -> OpID in
                try replica.createGallery("g")
                return try replica.insert([.titled("x")], into: "g", at: 0).id
            }
            #expect(b.wait(timeout: .seconds(10)) { $0.contains(item) })
            try #require(Self.waitUntil(.seconds(10)) { a.peers.contains { $0.name == "beta" && $0.state == .live } })

            // The slow peer: authenticates, asks for everything, sends heartbeats (so it is not dropped
            // for silence), and never reads.
            let slow = try AdversaryClient(endpoint, deadline: .seconds(40))
            var handshake = ClientHandshake(settings: HandshakeSettings(secret: TestCluster.secret, replica: ReplicaID(0x510E), name: "slowpoke"))
            slow.send(handshake.hello)
            let welcome = try #require(slow.nextFrame().flatMap { try? Message(frame: $0) })
            guard case .send(let auth) = try handshake.receive(welcome) else {
                Issue.record("no auth")
                return
            }
            slow.send(auth)
            let ok = try #require(slow.nextFrame().flatMap { try? Message(frame: $0) })
            guard case .done = try handshake.receive(ok) else {
                Issue.record("not authenticated")
                return
            }
            slow.send(.syncRequest(VersionVector()))
            let heartbeats = AdversaryHeartbeats(slow)
            heartbeats.start()
            defer { heartbeats.stop() }
            try #require(Self.waitUntil(.seconds(5)) { a.peers.contains { $0.name == "slowpoke" && $0.state == .syncing } })

            // A pushes 8 KB updates (of a URL: a title is at most 1 KiB); B keeps up (at most 3 ops in
            // flight to it, well under 64 KiB).
            let started = ContinuousClock.now
            let filler = String(repeating: "ops for nobody. ", count: 500)
            var pushed = 0
            var pushedBytes = 0
            var bKeptUp = true
            while ContinuousClock.now - started < .seconds(20) && pushedBytes < 64 << 20 {
                let op = try a.perform { try $0.update(item, .url, to: .text("\(pushed) \(filler)")) }
                pushed += 1
                pushedBytes += filler.utf8.count
                let target = op.id.counter - min(op.id.counter - 1, 3)
                if !b.wait(timeout: .seconds(5), until: { $0.version[aID] >= target }) {
                    bKeptUp = false
                    break
                }
                if lines.all.contains(where: { $0.contains("slowpoke closed") }) { break }
            }
            let pushTime = ContinuousClock.now - started
            heartbeats.stop()
            #expect(bKeptUp, "B fell behind after \(pushed) ops")
            let closedLine = lines.all.first { $0.contains("slowpoke closed") }
            #expect(closedLine?.contains("slow_peer") == true, "A's log: \(closedLine ?? "no close of slowpoke")")

            // The slow peer drains what is buffered: the connection ends (after `error slow_peer` if A's
            // writer got it out before the socket was shut).
            let drainStart = ContinuousClock.now
            let frames = slow.readToEnd()
            let drainTime = ContinuousClock.now - drainStart
            #expect(slow.end?.isClosedByPeer == true, "slow peer: \(String(describing: slow.end))")
            let allowed: Set<FrameType> = [.welcome, .authOK, .syncRequest, .ops, .caughtUp, .heartbeat, .error]
            #expect(frames.allSatisfy { $0.knownType.map(allowed.contains) ?? false })
            let errors = frames.filter { $0.knownType == .error }
            #expect(errors.count <= 1 && errors.allSatisfy { Self.errorCode($0) == .slowPeer }, "\(Self.describe(errors))")

            // A still serves B, which never lost its connection.
            let fromA = try a.perform { try $0.insert([.titled("after slow peer (a)")], into: "g", at: 0) }
            let fromB = try b.perform { try $0.insert([.titled("after slow peer (b)")], into: "g", at: 0) }
            #expect(b.wait(timeout: .seconds(10)) { $0.contains(fromA.id) })
            #expect(a.wait(timeout: .seconds(10)) { $0.contains(fromB.id) })
            #expect(Self.waitUntil(.seconds(5)) { a.peers.map(\.name) == ["beta"] })
            #expect(a.read { $0.version } == b.read { $0.version })
            let goodPeerDrops = lines.all.filter { $0.contains("connection to beta closed") || $0.contains("connection to alpha closed") }
            #expect(goodPeerDrops.isEmpty, "B's connection was dropped: \(goodPeerDrops)")
            print("AdversarialPeer: slow peer dropped after \(pushed) ops (\(pushedBytes >> 10) KiB) pushed in \(pushTime); "
                + "it drained \(slow.bytesRead >> 10) KiB in \(drainTime), error frame received: \(!errors.isEmpty); "
                + "A: \(closedLine ?? "-")")
        }

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

        /// The catch-up queues every missing op at once, under the node's lock, so a history larger than
        /// the outbound queue limit gets even a fast peer dropped as "slow", on every reconnect.
        @Test("A good peer joining a node whose history exceeds the outbound queue limit still catches up")
        func catchUpLargerThanQueueLimit() throws {
            let lines = LogLines()
            let log = NodeLog { line in lines.append(line) }
            func configuration(_ name: String, queueLimit: Int) -> NodeConfiguration {
                NodeConfiguration(
                    name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(5),
                    reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), outboundQueueLimit: queueLimit,
                    catchUpBatchBytes: 16 << 10, log: log)
            }
            let a = SyncNode(configuration: configuration("alpha", queueLimit: 64 << 10), replica: Replica(id: ReplicaID(deriving: "alpha")))
            let b = SyncNode(configuration: configuration("beta", queueLimit: 64 << 20), replica: Replica(id: ReplicaID(deriving: "beta")))
            let endpoint = try #require(try a.start())
            defer {
                b.stop()
                a.stop()
            }
            // About 200 KiB of history: three times the queue limit.
            let title = String(repeating: "t", count: 1_000)
            try a.perform { replica in
                try replica.createGallery("g")
                for index in 0..<200 { try replica.insert([.titled("\(index) \(title)")], into: "g", at: index) }
            }
            let history = a.read { $0.encodedLogSize }
            try b.start()
            b.keepConnected(to: endpoint)
            let target = a.read { $0.version }
            let caughtUp = b.wait(timeout: .seconds(5)) { $0.version.includes(target) }
            let drops = lines.all.filter { $0.contains("slow_peer") }
            print("AdversarialPeer: catch-up of \(history >> 10) KiB through a 64 KiB queue: caught up \(caughtUp), "
                + "\(drops.count) slow_peer drops, e.g. \(drops.first ?? "-")")
            #expect(caughtUp, "B never caught up with A's \(history) bytes of history; \(drops.count) slow_peer drops")
            #expect(drops.isEmpty)
        }

        /// Found when B was dropped during the attacks with "timeout: no frame for 18446744073709 ms":
        /// the liveness loop reads the clock once per pass, and `Connection.tick` computes
        /// `now &- lastReceived`; a frame received after `now` was read makes that wrap around.
        @Test("A peer that sends frames all the time is never dropped for silence")
        func busyPeerIsNotTimedOut() throws {
            let lines = LogLines()
            let log = NodeLog { line in lines.append(line) }
            // Heartbeats every millisecond: frames flow both ways all the time; liveness ticks every 0.1 ms.
            func node(_ name: String) -> SyncNode {
                SyncNode(
                    configuration: NodeConfiguration(
                        name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(1), peerTimeout: .seconds(5),
                        reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), log: log),
                    replica: Replica(id: ReplicaID(deriving: name)))
            }
            let a = node("alpha")
            let b = node("beta")
            let endpoint = try #require(try a.start())
            try b.start()
            defer {
                b.stop()
                a.stop()
            }
            b.keepConnected(to: endpoint)
            try #require(Self.waitUntil(.seconds(10)) { a.peers.first?.state == .live && b.peers.first?.state == .live })
            Thread.sleep(forTimeInterval: 2)
            let timeouts = lines.all.filter { $0.contains("timeout") }
            print("AdversarialPeer: busy peers for 2 s: \(timeouts.count) spurious timeouts \(timeouts.prefix(2))")
            #expect(timeouts.isEmpty, "\(timeouts)")
        }

        // MARK: Expectations

        /// A bad connection: closed by A, only `welcome` (when expected) and at most one `error` received,
        /// ending with the expected error code.
        static func expectRefused(_ talk: Conversation, code: ErrorCode?, welcome: Bool = false,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(talk.end.isClosedByPeer, "\(talk.label): \(talk.end) after \(talk.elapsed)", sourceLocation: sourceLocation)
            let types = talk.frames.map(\.knownType)
            // Nothing beyond welcome without authenticating.
            #expect(types.allSatisfy { $0 == .welcome || $0 == .error }, "\(talk.label): \(describe(talk.frames))",
                    sourceLocation: sourceLocation)
            #expect(types.filter { $0 == .welcome }.count == (welcome ? 1 : 0), "\(talk.label): \(describe(talk.frames))",
                    sourceLocation: sourceLocation)
            if let code {
                #expect(errorCode(talk.frames.last) == code, "\(talk.label): \(describe(talk.frames))", sourceLocation: sourceLocation)
            } else {
                #expect(!types.contains(.error), "\(talk.label): \(describe(talk.frames))", sourceLocation: sourceLocation)
            }
            #expect(talk.elapsed < .seconds(5), "\(talk.label): took \(talk.elapsed)", sourceLocation: sourceLocation)
        }

        /// B and A still exchange ops in both directions, and converge.
        static func expectServing(_ cluster: TestCluster, label: String, round: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            let a = cluster.nodes[0]
            let b = cluster.nodes[1]
            do {
                let fromA = try a.perform { try $0.insert([.titled("a\(round)")], into: "g", at: 0) }
                let fromB = try b.perform { try $0.insert([.titled("b\(round)")], into: "g", at: 0) }
                #expect(b.wait(timeout: .seconds(10)) { $0.contains(fromA.id) }, "\(label): A's op did not reach B",
                        sourceLocation: sourceLocation)
                #expect(a.wait(timeout: .seconds(10)) { $0.contains(fromB.id) }, "\(label): B's op did not reach A",
                        sourceLocation: sourceLocation)
                #expect(cluster.waitForConvergence(timeout: .seconds(10)), "\(label)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(label): \(error)", sourceLocation: sourceLocation)
            }
        }

        static func errorCode(_ frame: Frame?) -> ErrorCode? {
            guard let frame, case .error(let code, _)? = try? Message(frame: frame) else { return nil }
            return code
        }

        static func describe(_ frames: [Frame]) -> String {
            frames.map { frame in
                if let message = try? Message(frame: frame), case .error(let code, let text) = message { return "error \(code) \"\(text)\"" }
                return frame.knownType.map { "\($0)" } ?? "type \(frame.type)"
            }.joined(separator: ", ")
        }

        // MARK: Conversations

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

        /// A valid hello from `replica`.
        static func hello(replica: ReplicaID) -> [UInt8] {
            Message.hello(Hello(versions: HandshakeSettings.supportedVersions, replica: replica, nonce: HandshakeSettings.makeNonce(),
                                maximumFrameSize: FrameLimits.defaultMaximum, name: "raw")).frame.encoded
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
            var handshake = ServerHandshake(settings: HandshakeSettings(secret: Array("model".utf8), replica: server, name: "model"))
            decoder.append(bytes)
            do {
                while let frame = try decoder.next() {
                    if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { continue }
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
                case .checksumMismatch: return .error(.corruptFrame)
                }
            } catch let failure as HandshakeFailure {
                return .error(failure.code)
            } catch {
                return .error(.internalError)
            }
        }

        // MARK: Small helpers

        static func waitUntil(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return condition()
        }

        static func openDescriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        }

        static func threadCount() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        }
    }
}

/// A hand-driven TCP client: raw bytes out, frames in. One deadline bounds every read: when it
/// passes, the streams are closed, which wakes a blocked read.
///
/// `@unchecked Sendable`: `timedOut` and `finished` are guarded by `lock`; the rest is used by one
/// thread at a time (the test's), except `send` from `AdversaryHeartbeats`, which never overlaps
/// another writer.
final class AdversaryClient: @unchecked Sendable {
    enum End: Equatable, CustomStringConvertible {
        /// The peer closed the connection: read returned 0.
        case eof
        /// The connection was reset (read failed), after the peer closed with data unread.
        case reset(String)
        /// The deadline passed first.
        case timeout
        /// The peer sent bytes that are not frames.
        case garbage(String)

        var isClosedByPeer: Bool {
            switch self {
            case .eof, .reset: true
            case .timeout, .garbage: false
            }
        }

        var description: String {
            switch self {
            case .eof: "closed by the node"
            case .reset(let reason): "reset by the node (\(reason))"
            case .timeout: "still open at the deadline"
            case .garbage(let reason): "undecodable bytes from the node (\(reason))"
            }
        }
    }

    let streams: StreamPair
    private let lock = NSLock()
    private var timedOut = false
    private var finished = false
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    /// Every frame received so far.
    private(set) var frames: [Frame] = []
    private var delivered = 0
    private(set) var bytesRead = 0
    private(set) var end: End?

    init(_ endpoint: Endpoint, deadline: Duration) throws {
        streams = try Connector.connect(to: endpoint, timeout: .seconds(2))
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in self?.expire() }
    }

    deinit {
        streams.close()
    }

    private func expire() {
        let expired = lock.withLock { () -> Bool in
            if finished { return false }
            timedOut = true
            return true
        }
        if expired { streams.close() }
    }

    /// Writes all of `bytes`; false when the connection is closed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { streams.output.write($0.baseAddress!, maxLength: $0.count) == $0.count }
    }

    /// Sends a message as a client does: plain during the handshake, with its checksum trailer
    /// once `auth_ok` has arrived.
    @discardableResult
    func send(_ message: Message) -> Bool {
        send(message.frame.encoded(checksummed: sealed))
    }

    /// Whether `auth_ok` has arrived: frames both ways carry a checksum trailer from then on.
    private(set) var sealed = false

    /// The next frame not yet returned, reading as needed; nil once the connection has ended.
    func nextFrame() -> Frame? {
        while delivered == frames.count {
            guard end == nil, readMore() else { return nil }
        }
        delivered += 1
        return frames[delivered - 1]
    }

    /// Reads until the connection ends; the frames not yet returned.
    func readToEnd() -> [Frame] {
        while end == nil && readMore() {}
        defer { delivered = frames.count }
        return Array(frames[delivered...])
    }

    func close() {
        lock.withLock { finished = true }
        streams.close()
    }

    /// One read; false when the connection ended (and `end` says how).
    private func readMore() -> Bool {
        let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
        if count <= 0 {
            if lock.withLock({ timedOut }) {
                end = .timeout
            } else if count == 0 {
                end = .eof
            } else {
                end = .reset(streams.input.streamError.map { "\($0.localizedDescription)" } ?? "read failed")
            }
            return false
        }
        bytesRead += count
        decoder.append(Array(buffer[0..<count]))
        do {
            while let frame = try decoder.next() {
                frames.append(frame)
                if frame.knownType == .authOK {
                    sealed = true
                    decoder.checksummed = true
                }
            }
        } catch {
            end = .garbage("\(error)")
            return false
        }
        return true
    }
}

/// Sends a heartbeat every 200 ms from its own thread until stopped.
final class AdversaryHeartbeats: Sendable {
    private let peer: AdversaryClient
    private let stopped = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    init(_ peer: AdversaryClient) {
        self.peer = peer
    }

    func start() {
        Thread.detachNewThread { [self] in
            while !stopped.withLock({ $0 }) {
                if !peer.send(.heartbeat) { break }
                Thread.sleep(forTimeInterval: 0.2)
            }
            done.signal()
        }
    }

    /// Stops sending; returns once the thread has ended (within a bounded time). Idempotent.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { _ = done.wait(timeout: .now() + 5) }
    }
}

/// A value shared between threads.
final class AdversaryShared<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) {
        state = Mutex(value)
    }

    var value: Value { state.withLock { $0 } }

    func set(_ value: Value) {
        state.withLock { $0 = value }
    }

    func update(_ body: (inout Value) -> Void) {
        state.withLock { body(&$0) }
    }
}

/// Counts of the flood's connections, from several threads.
final class AdversaryFlood: Sendable {
    private let state = Mutex<(opened: Int, failed: Int, partialWrites: Int)>((0, 0, 0))

    func opened(wrote: Bool) {
        state.withLock {
            $0.opened += 1
            if !wrote { $0.partialWrites += 1 }
        }
    }

    func failed() {
        state.withLock { $0.failed += 1 }
    }

    var counts: (opened: Int, failed: Int, partialWrites: Int) {
        state.withLock { $0 }
    }
}
