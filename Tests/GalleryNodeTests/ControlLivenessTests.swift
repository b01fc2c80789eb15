import Foundation
import GalleryControl
import GalleryIO
import GalleryModel
@testable import GalleryNode
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// Command-line sessions and liveness: a node must not drop a client whose command it is still
    /// running, nor a client that only listens (`watch`).
    @Suite("Control liveness")
    struct ControlLivenessTests {
        /// A node with short timings and its control socket, in a directory of its own.
        private struct ControlNode {
            let node: SyncNode
            let directory: URL
            let control: ControlServer

            init(persistDelay: TimeInterval? = nil, allowedUser: uid_t? = nil, started: Bool = true) throws {
                let configuration = NodeConfiguration(
                    name: "node", secret: Array("control liveness".utf8), heartbeatInterval: .milliseconds(100),
                    peerTimeout: .milliseconds(500), log: .silent,
                    persist: { _, _ in
                        if let persistDelay { Thread.sleep(forTimeInterval: persistDelay) }
                    })
                node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "node")))
                if started { try node.start() }
                try node.perform { try $0.createGallery("node") }
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-control-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                control = try ControlServer(node: node, path: ControlClient.socketPath(of: directory), allowedUser: allowedUser)
            }

            /// Stops the control socket (if the test did not) and the node, removes the directory.
            func tearDown() {
                control.stop()
                node.stop()
                try? FileManager.default.removeItem(at: directory)
            }
        }

        @Test("A command that runs longer than the peer timeout is answered, not dropped")
        func longCommand() throws {
            // Storing each op takes twice the timeout: the node is busy, not the client silent.
            let fixture = try ControlNode(persistDelay: 1)
            defer { fixture.tearDown() }
            let (node, directory) = (fixture.node, fixture.directory)
            let response = try ControlClient.send(ControlRequest(id: 1, command: .newGallery("slow")), to: directory)
            #expect(response.ok, "\(response.error ?? "")")
            #expect(node.read { $0.hasGallery("slow") })
        }

        @Test("A command longer than the client's silence limit is waited for, while the node sends heartbeats")
        func commandLongerThanSilenceLimit() throws {
            // One op stored in 6 s, past the client's 5 s silence limit: it must still be answered.
            let fixture = try ControlNode(persistDelay: 6)
            defer { fixture.tearDown() }
            let (node, directory) = (fixture.node, fixture.directory)
            let started = ContinuousClock.now
            let response = try ControlClient.send(ControlRequest(id: 1, command: .newGallery("slow")), to: directory)
            #expect(response.ok, "\(response.error ?? "")")
            #expect(ContinuousClock.now - started > ControlClient.silenceLimit)
            #expect(node.read { $0.hasGallery("slow") })
        }

        @Test("With every command slot taken, commands that only read are still answered; changes are refused as busy")
        func readsBypassCommandSlots() throws {
            let fixture = try ControlNode()
            defer { fixture.tearDown() }
            let (node, directory, control) = (fixture.node, fixture.directory, fixture.control)
            // As if 64 long commands (large adds, a slow disk) held every slot.
            control.dispatch.slots.withLock { $0.running = ControlDispatch.maximumRunningCommands }
            for (id, command) in [(1, ControlCommand.list(gallery: nil)), (2, .status), (3, .galleries), (4, .peers)] {
                let response = try ControlClient.send(ControlRequest(id: id, command: command), to: directory)
                #expect(response.ok, "\(command.name): \(response.error ?? "")")
            }
            let refused = try ControlClient.send(ControlRequest(id: 5, command: .newGallery("late")), to: directory)
            #expect(!refused.ok && refused.error?.contains("busy") == true, "\(refused)")
            #expect(!node.read { $0.hasGallery("late") })
            control.dispatch.slots.withLock { $0.running = 0 }
            #expect(try ControlClient.send(ControlRequest(id: 6, command: .newGallery("late")), to: directory).ok)
        }

        @Test("Command threads are bounded: with every one taken, any request is refused as busy, then served again")
        func commandThreadsBounded() throws {
            let fixture = try ControlNode()
            defer { fixture.tearDown() }
            let (node, directory, control) = (fixture.node, fixture.directory, fixture.control)
            // As if 128 commands (64 changes, 64 reads) were running.
            control.dispatch.slots.withLock { $0.threads = ControlDispatch.maximumCommandThreads }
            for (id, command) in [(1, ControlCommand.status), (2, .newGallery("late"))] {
                let refused = try ControlClient.send(ControlRequest(id: id, command: command), to: directory)
                #expect(!refused.ok && refused.id == id && refused.error?.contains("busy") == true, "\(refused)")
            }
            control.dispatch.slots.withLock { $0.threads = 0 }
            #expect(try ControlClient.send(ControlRequest(id: 3, command: .newGallery("late")), to: directory).ok)
            #expect(node.read { $0.hasGallery("late") })
            // Its thread ends just after answering: polled, within a deadline.
            let deadline = ContinuousClock.now + .seconds(5)
            while control.dispatch.slots.withLock({ $0.threads }) != 0 && ContinuousClock.now < deadline { usleep(1_000) }
            #expect(control.dispatch.slots.withLock { $0.threads } == 0)
        }

        @Test("watch stays open while nothing changes for longer than the peer timeout")
        func quietWatch() throws {
            let fixture = try ControlNode()
            defer { fixture.tearDown() }
            let (node, directory) = (fixture.node, fixture.directory)
            let answers = Mutex(0)
            let started = ContinuousClock.now
            // The client's own timeout (4 s, eight peer timeouts) ends the watch without an error; it
            // leaves 2.5 s after the late insert for it to be stored and answered under CI's load.
            #expect(throws: Never.self) {
                try ControlClient.stream(ControlRequest(id: 1, command: .watch(gallery: "node")), to: directory, timeout: .seconds(4)) { response in
                    answers.withLock { $0 += 1 }
                    if answers.withLock({ $0 }) == 1 {
                        // One change after three peer timeouts of silence must still arrive.
                        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) {
                            _ = try? node.perform { try $0.insert([.titled("late")], into: "node", at: 0) }
                        }
                    }
                    return response.ok
                }
            }
            #expect(answers.withLock { $0 } == 2, "the first listing and the late insert")
            #expect(ContinuousClock.now - started >= .seconds(3.9))
        }

        @Test("watch stays open while changes stream for longer than the peer timeout (answers keep it busy, heartbeats still ask)")
        func busyWatch() throws {
            let fixture = try ControlNode()
            defer { fixture.tearDown() }
            let (node, directory) = (fixture.node, fixture.directory)
            let answers = Mutex(0)
            let made = Mutex(0)
            let streaming = DispatchGroup()
            streaming.enter()
            Thread.detachNewThread {
                // A change every 50 ms for 1.8 s: the node is never idle towards this client.
                for round in 0..<36 {
                    if (try? node.perform({ try $0.insert([.titled("busy \(round)")], into: "node", at: 0) })) != nil {
                        made.withLock { $0 += 1 }
                    }
                    usleep(50_000)
                }
                streaming.leave()
            }
            // The client's own timeout (2 s, four peer timeouts) ends the watch without an error.
            #expect(throws: Never.self) {
                try ControlClient.stream(ControlRequest(id: 1, command: .watch(gallery: "node")), to: directory, timeout: .seconds(2)) { response in
                    answers.withLock { $0 += 1 }
                    return response.ok
                }
            }
            let madeWhileWatched = made.withLock { $0 }
            streaming.wait()
            // Every insert made while the client watched was answered (the listing counts one;
            // the last insert may still have been on its way), over several peer timeouts.
            #expect(madeWhileWatched >= 10, "only \(madeWhileWatched) inserts in 2 s")
            #expect(answers.withLock { $0 } >= madeWhileWatched, "the listing and the inserts, until the client's own timeout")
        }

        @Test("A node with no event loops (not started) gets a control socket on one loop of its own: watch and commands work, and stop ends it")
        func nodeWithoutLoops() throws {
            let fixture = try ControlNode(started: false)
            defer { fixture.tearDown() }
            let (node, directory, control) = (fixture.node, fixture.directory, fixture.control)
            #expect(node.ioLoops == nil)
            let answers = Mutex(0)
            try ControlClient.stream(ControlRequest(id: 1, command: .watch(gallery: "node")), to: directory, timeout: .seconds(5)) { response in
                #expect(response.ok, "\(response.error ?? "")")
                let count = answers.withLock { count in
                    count += 1
                    return count
                }
                if count == 1 { _ = try? node.perform { try $0.insert([.titled("seen")], into: "node", at: 0) } }
                return count < 2
            }
            #expect(answers.withLock { $0 } == 2, "the listing, then the insert")
            control.stop()
            // The socket is gone once stopped; nothing answers there.
            #expect(!FileManager.default.fileExists(atPath: control.path))
            #expect(throws: ControlClient.Failure.self) {
                _ = try ControlClient.send(ControlRequest(id: 2, command: .galleries), to: directory)
            }
        }

        @Test("The control socket is mode 0600 and refuses a user other than the node's, changing nothing")
        func otherUserRefused() throws {
            let fixture = try ControlNode(allowedUser: getuid() &+ 1)
            defer { fixture.tearDown() }
            let (node, directory, control) = (fixture.node, fixture.directory, fixture.control)
            let attributes = try FileManager.default.attributesOfItem(atPath: control.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect(attributes[.type] as? FileAttributeType == .typeSocket)
            #expect(throws: ControlClient.Failure.self) {
                _ = try ControlClient.send(ControlRequest(id: 1, command: .newGallery("intruder")), to: directory)
            }
            do {
                _ = try ControlClient.send(ControlRequest(id: 1, command: .newGallery("intruder")), to: directory)
            } catch {
                guard case .authRefused = error else { Issue.record("expected a refusal, got \(error)"); return }
            }
            #expect(!node.read { $0.hasGallery("intruder") })
        }

        @Test("The command line refuses a socket served by another user than its own, sending nothing")
        func foreignSocketRefused() throws {
            let fixture = try ControlNode()
            defer { fixture.tearDown() }
            let (node, directory) = (fixture.node, fixture.directory)
            // As if the socket's listener ran as another user: the client expects a user it is not.
            let other = geteuid() &+ 1
            do {
                _ = try ControlClient.send(ControlRequest(id: 1, command: .newGallery("planted")), to: directory, nodeUser: other)
                Issue.record("a socket of user \(geteuid()) was taken for one of user \(other)")
            } catch {
                guard case .foreignOwner(let reason) = error else { Issue.record("expected a refusal, got \(error)"); return }
                #expect(reason.contains("served by user \(geteuid())") && reason.contains("nothing was sent"), "\(reason)")
            }
            #expect(!node.read { $0.hasGallery("planted") }, "the request never reached the node")
            // The node's own user is talked to as before.
            #expect(try ControlClient.send(ControlRequest(id: 2, command: .newGallery("mine")), to: directory).ok)
            #expect(node.read { $0.hasGallery("mine") })
        }

        @Test("A stale socket of a killed node is replaced; anything else at the path is left alone")
        func staleSocket() throws {
            let fixture = try ControlNode()
            defer { fixture.tearDown() }
            let (node, directory, control) = (fixture.node, fixture.directory, fixture.control)
            let path = control.path
            // A socket file left behind (as by kill -9): a new server takes its place.
            _ = try UnixSocketFixture.bindOnly(path: path + ".stale")
            control.stop()
            try FileManager.default.moveItem(atPath: path + ".stale", toPath: path)
            let replaced = try ControlServer(node: node, path: path)
            #expect(try ControlClient.send(ControlRequest(id: 1, command: .galleries), to: directory).ok)
            replaced.stop()
            #expect(!FileManager.default.fileExists(atPath: path))
            // A regular file where the socket goes is not removed: the server refuses to start.
            try Data("mine".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: TransportError.self) { _ = try ControlServer(node: node, path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("mine".utf8))
            // A path longer than a socket address holds is a clear error.
            let long = directory.path + "/" + String(repeating: "x", count: 200)
            do {
                _ = try ControlServer(node: node, path: long)
                Issue.record("a 200-byte socket name was accepted")
            } catch {
                #expect(error.localizedDescription.contains("longer than"))
            }
        }
    }
}
