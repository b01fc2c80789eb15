import Foundation
import GalleryControl
import GalleryCrypto
import GalleryTestSupport
import GalleryWire
import Testing

/// Control of a node across real processes: only over `DIR/control.sock`, never over
/// the peer port; files written by the command line; no command that hangs, blocks a slot, or
/// says one thing and does another; titles that cannot drive the terminal.
@Suite("Control socket and honest commands", .serialized)
struct ControlSocketTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-ctl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func gallery(_ directory: URL, _ arguments: String...) throws -> GalleryProcess.Result {
        try GalleryProcess.run(["-C", directory.path] + arguments)
    }

    private func ids(_ directory: URL, _ name: String) throws -> [String] {
        let result = try gallery(directory, "list", name, "--json")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test("The CLI talks over DIR/control.sock (mode 0600); control frames on the peer port are refused and change nothing")
    func peerPortRefusesControl() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try ServeProcess([directory.path, "--name", "alice"])
        defer { #expect(node.stop() == 0) }
        let endpoint = try #require(node.endpoint)
        let socket = directory.appendingPathComponent("control.sock").path
        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        #expect(attributes[.type] as? FileAttributeType == .typeSocket)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let added = try gallery(directory, "add", "https://example.org/a.png")
        #expect(added.status == 0, "\(added.stderr)")
        let before = try ids(directory, "alice")
        #expect(before.count == 1)

        // The attack of the issue: an authenticated peer link carrying commands, here an export
        // over an existing file and a delete. Each is refused with an error frame and closed.
        let target = directory.appendingPathComponent("victim.sh")
        try Data("#!/bin/sh\necho original\n".utf8).write(to: target)
        let secret = Array(try Data(contentsOf: directory.appendingPathComponent("secret")))
        let requests = [
            #"{"id":1,"command":"export","items":["alice:0"],"files":["\#(target.path)"]}"#,
            #"{"id":2,"command":"delete","items":["alice:0"]}"#,
            #"{"id":3,"command":"connect","gallery":"127.0.0.1:9"}"#,
        ]
        for json in requests {
            var peer = try RawPeer(connectingTo: endpoint, secret: secret)
            defer { peer.streams.close() }
            peer.send(.controlRequest(Array(json.utf8)))
            let error = try peer.receiveError()
            #expect(error?.0 == .protocolError, "\(String(describing: error))")
            #expect(error?.1.contains("control socket") == true)
            #expect(try peer.receiveOrEnd() == nil, "the connection is closed after the refusal")
        }
        #expect(try Data(contentsOf: target) == Data("#!/bin/sh\necho original\n".utf8))
        // Nothing changed, and the node still serves the command line.
        #expect(try ids(directory, "alice") == before)
        #expect(try gallery(directory, "peers").stdout.isEmpty)
    }

    @Test("export checks the hash: a tampered blob exits 1 and writes nothing; a good one matches byte for byte")
    func exportChecksHash() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        let directory = space.directory("alice")
        let image = try space.image("pic.png", bytes: 300_000)
        #expect(try space.gallery("alice", "add", image).status == 0)
        let copy = space.base.appendingPathComponent("copy.png")
        let exported = try space.gallery("alice", "export", "alice:0", copy.path)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try Data(contentsOf: copy) == Data(contentsOf: URL(fileURLWithPath: image)))

        // One flipped byte, then a cut: each refused, the destination untouched, no file left behind.
        let hash = SHA256.hex(SHA256.hash(Array(try Data(contentsOf: URL(fileURLWithPath: image)))))
        let blob = URL(fileURLWithPath: BlobExport.blobPath(of: hash, in: directory))
        var bytes = Array(try Data(contentsOf: blob))
        let destination = space.base.appendingPathComponent("keep.txt")
        try Data("untouched".utf8).write(to: destination)
        bytes[150_000] ^= 0x01
        for tampered in [bytes, Array(bytes.prefix(1_000))] {
            try FileManager.default.removeItem(at: blob)
            try Data(tampered).write(to: blob)
            let refused = try space.gallery("alice", "export", "alice:0", destination.path)
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing was written"), "\(refused.stderr)")
            #expect(try Data(contentsOf: destination) == Data("untouched".utf8))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: space.base.path)
        #expect(left.filter { $0.hasSuffix(".export") }.isEmpty, "\(left)")

        // An export over an existing private file keeps it private (mode 0600, not the umask's).
        try FileManager.default.removeItem(at: blob)
        try Data(contentsOf: URL(fileURLWithPath: image)).write(to: blob)
        #expect(chmod(destination.path, 0o600) == 0)
        let over = try space.gallery("alice", "export", "alice:0", destination.path)
        #expect(over.status == 0, "\(over.stderr)")
        let mode = (try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600, "mode \(String(mode ?? -1, radix: 8))")
        #expect(try Data(contentsOf: destination) == Data(contentsOf: URL(fileURLWithPath: image)))
    }

    @Test("add of a FIFO is refused at once; 70 in a row do not lock out a following list")
    func fifoAdds() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try ServeProcess([directory.path, "--name", "alice"])
        defer { #expect(node.stop() == 0) }
        #expect(node.endpoint != nil)
        let fifo = directory.appendingPathComponent("pipe.png").path
        #expect(mkfifo(fifo, 0o600) == 0)

        let started = ContinuousClock.now
        let refused = try gallery(directory, "add", fifo)
        #expect(refused.status == 1 && refused.stderr.contains("is a FIFO, not a regular file"), "\(refused.stderr)")
        // The node checks too: requests that skip the command line's check (more than the node's
        // 64 command slots) each get a refusal, at once.
        for index in 0..<70 {
            let response = try ControlClient.send(
                ControlRequest(id: index, command: .add(AddRequest(sources: [.file(fifo), .file(directory.appendingPathComponent("secret").path)], gallery: "alice"))),
                to: directory)
            #expect(!response.ok && response.error?.contains("is a FIFO") == true, "\(response)")
        }
        // A folder's files are imported; this one (the node's own) holds no image: nothing is added.
        let folder = try gallery(directory, "add", directory.path)
        #expect(folder.status == 1 && folder.stderr.contains("nothing to add"), "\(folder.stderr)")
        let list = try gallery(directory, "list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("alice (0 items)"))
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("watch and drag --wait against a node that accepts and never answers exit 1 within seconds")
    func silentNode() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = try SilentControlSocket(path: directory.appendingPathComponent("control.sock").path)
        defer { fake.stop() }
        let started = ContinuousClock.now
        let watcher = try ServeProcess(["-C", directory.path, "watch", "--json"], serve: false)
        let drag = try gallery(directory, "drag", "1@0000000000000001", "--to", "x", "--wait")
        let watched = watcher.waitForExit(timeout: 20)
        let elapsed = ContinuousClock.now - started
        #expect(drag.status == 1 && drag.stderr.contains("no answer from the node"), "\(drag.stderr)")
        #expect(watched == 1, "\(watcher.standardError)")
        #expect(watcher.standardError.contains("no answer from the node"), "\(watcher.standardError)")
        #expect(elapsed < .seconds(15), "\(elapsed)")
    }

    @Test("delete A B with B deleted already changes nothing and exits 1 naming B")
    func deleteAllOrNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try ServeProcess([directory.path, "--name", "alice"])
        defer { #expect(node.stop() == 0) }
        #expect(node.endpoint != nil)
        let added = try gallery(directory, "add", "https://example.org/a.png", "https://example.org/b.png")
        let made = added.stdout.split(separator: "\n").map(String.init)
        #expect(made.count == 2)
        #expect(try gallery(directory, "delete", made[1]).status == 0)
        let status = try gallery(directory, "status", "--json")
        let refused = try gallery(directory, "delete", made[0], made[1])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(made[1]) && refused.stderr.contains("is in the Trash"), "\(refused.stderr)")
        #expect(try ids(directory, "alice") == [made[0]])
        // No op was made: the op count is the same.
        #expect(try gallery(directory, "status", "--json").stdout == status.stdout)
    }

    @Test("list escapes control characters of titles on the terminal; list --json keeps them exact")
    func listEscapes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try ServeProcess([directory.path, "--name", "alice"])
        defer { #expect(node.stop() == 0) }
        #expect(node.endpoint != nil)
        let title = "red\u{1b}[31m over\rwrite\u{85}"
        let added = try gallery(directory, "add", "https://example.org/a.png", "--title", title)
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try gallery(directory, "list", "alice")
        #expect(listed.status == 0)
        #expect(listed.stdout.contains(#"red\u{1B}[31m over\rwrite\u{85}"#), "\(listed.stdout)")
        #expect(!listed.stdout.unicodeScalars.contains { $0.value == 0x1B || $0 == "\r" || $0.value == 0x85 })
        let json = try gallery(directory, "list", "alice", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let titles = (object?["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        #expect(titles == [title])
    }
}
