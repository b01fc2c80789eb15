import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

extension NodeSuites {
    /// Command-line sessions and liveness: a node must not drop a client whose command it is still
    /// running, nor a client that only listens (`watch`).
    @Suite("Control liveness")
    struct ControlLivenessTests {
        /// A node with short timings, and a directory that points the control client at it.
        private func node(persistDelay: TimeInterval? = nil) throws -> (SyncNode, URL) {
            let secret = Array("control liveness".utf8)
            let node = SyncNode(
                configuration: NodeConfiguration(
                    name: "node", secret: secret, heartbeatInterval: .milliseconds(100),
                    peerTimeout: .milliseconds(500), log: .silent,
                    persist: { _, _ in
                        if let persistDelay { Thread.sleep(forTimeInterval: persistDelay) }
                    }),
                replica: Replica(id: ReplicaID(deriving: "node")))
            try node.start()
            try node.perform { try $0.createGallery("node") }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-control-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(secret).write(to: directory.appendingPathComponent("secret"))
            let info = "{\"name\": \"node\", \"address\": \"\(node.endpoint!.description)\"}"
            try Data(info.utf8).write(to: directory.appendingPathComponent("node.json"))
            return (node, directory)
        }

        @Test("A command that runs longer than the peer timeout is answered, not dropped")
        func longCommand() throws {
            // Storing each op takes twice the timeout: the node is busy, not the client silent.
            let (node, directory) = try node(persistDelay: 1)
            defer {
                node.stop()
                try? FileManager.default.removeItem(at: directory)
            }
            let response = try ControlClient.send(ControlRequest(id: 1, command: "new-gallery", gallery: "slow"), to: directory)
            #expect(response.ok, "\(response.error ?? "")")
            #expect(node.read { $0.hasGallery("slow") })
        }

        @Test("watch stays open while nothing changes for longer than the peer timeout")
        func quietWatch() throws {
            let (node, directory) = try node()
            defer {
                node.stop()
                try? FileManager.default.removeItem(at: directory)
            }
            let answers = Mutex(0)
            let started = ContinuousClock.now
            // The client's own timeout (2 s, four peer timeouts) ends the watch without an error.
            #expect(throws: Never.self) {
                try ControlClient.stream(ControlRequest(id: 1, command: "watch", gallery: "node"), to: directory, timeout: .seconds(2)) { response in
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
            #expect(ContinuousClock.now - started >= .seconds(1.9))
        }
    }
}
