import Foundation
import GalleryTestSupport

/// Two real nodes of one space for `gallery-bench web`, each `gallery serve DIR --http` in its own
/// process: A holds a gallery of N small PNGs (added with `gallery add`) and a reference gallery of
/// the first `reference` of them, B dials A and has synced it.
final class WebBenchNodes {
    /// The reference gallery's name.
    static let referenceGallery = "reference"

    /// One node: its process, sign-in link, web port and token.
    struct Node {
        let process: ServeProcess
        let directory: URL
        let link: String
        let webPort: UInt16
        let token: String

        init(_ arguments: [String], directory: URL) throws {
            process = try ServeProcess([directory.path] + arguments + ["--http"], timeout: 60)
            guard let line = process.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("web: ") }),
                  let components = URLComponents(string: String(line.dropFirst(5))), let port = components.port,
                  let token = components.queryItems?.first(where: { $0.name == "token" })?.value else {
                process.stop()
                throw BenchFailure.failed("web: the node on \(directory.path) printed no web link: \(process.standardError)")
            }
            self.directory = directory
            link = String(line.dropFirst(5))
            webPort = UInt16(port)
            self.token = token
        }
    }

    let a: Node
    let b: Node
    /// The ID of A's last item.
    let lastID: String

    init(root: URL, items: Int, reference: Int = 0) throws {
        let directoryA = root.appendingPathComponent("alice")
        a = try Node(["--name", "alice"], directory: directoryA)
        do {
            let pictures = root.appendingPathComponent("pictures")
            try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
            var paths: [String] = []
            for index in 0..<items {
                let path = pictures.appendingPathComponent(String(format: "photo-%05d.png", index)).path
                let landscape = index % 4 != 1
                guard FileManager.default.createFile(atPath: path, contents: Data(PNGImage.make(
                    width: landscape ? 30 : 20, height: landscape ? 20 : 27, seed: UInt64(index)))) else {
                    throw BenchFailure.failed("web: cannot write \(path)")
                }
                paths.append(path)
            }
            for start in stride(from: 0, to: items, by: 2_000) {
                let result = try GalleryProcess.run(["-C", directoryA.path, "add"] + paths[start..<min(items, start + 2_000)], timeout: 300)
                guard result.ok else { throw BenchFailure.failed("web: gallery add: \(result.stderr)") }
            }
            if reference > 0 {
                let created = try GalleryProcess.run(["-C", directoryA.path, "new-gallery", Self.referenceGallery], timeout: 60)
                let added = try GalleryProcess.run(["-C", directoryA.path, "add"] + paths.prefix(reference) + ["--to", Self.referenceGallery], timeout: 300)
                guard created.ok, added.ok else { throw BenchFailure.failed("web: the reference gallery: \(created.stderr)\(added.stderr)") }
            }
            try? FileManager.default.removeItem(at: pictures)
            let ids = try Self.ids(directoryA)
            guard ids.count == items, let last = ids.last else { throw BenchFailure.failed("web: A lists \(ids.count) items") }
            lastID = last
            guard let endpoint = a.process.endpoint else { throw BenchFailure.failed("web: A has no peer address") }
            let directoryB = root.appendingPathComponent("bob")
            b = try Node(["--name", "bob", "--secret-file", directoryA.appendingPathComponent("secret").path,
                          "--peer", endpoint.description], directory: directoryB)
            let deadline = Date().addingTimeInterval(120)
            while try Self.ids(directoryB).count < items {
                guard Date() < deadline else { b.process.stop(); throw BenchFailure.failed("web: B did not sync A's gallery in 120 s") }
                usleep(500_000)
            }
        } catch {
            a.process.stop()
            throw error
        }
    }

    /// Adds a PNG of `bytes` bytes (a small picture, then filler) to A; its hash.
    func addBlob(bytes: Int, in folder: URL) throws -> String {
        var data = Data(PNGImage.make(width: 64, height: 48, seed: 99))
        var generator = SystemRandomNumberGenerator()
        let words = (0..<(bytes - data.count + 7) / 8).map { _ in generator.next() as UInt64 }
        words.withUnsafeBytes { data.append(contentsOf: $0.prefix(bytes - data.count)) }
        let path = folder.appendingPathComponent("big.png").path
        guard FileManager.default.createFile(atPath: path, contents: data) else { throw BenchFailure.failed("web: cannot write \(path)") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try GalleryProcess.run(["-C", a.directory.path, "add", path, "--to", "bob"], timeout: 300)
        guard result.ok else { throw BenchFailure.failed("web: gallery add big.png: \(result.stderr)") }
        let list = try GalleryProcess.run(["-C", a.directory.path, "list", "bob", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        guard let hash = (object?["items"] as? [[String: Any]])?.last?["hash"] as? String else {
            throw BenchFailure.failed("web: the big blob has no hash")
        }
        return hash
    }

    /// Stops both nodes.
    func stop() {
        b.process.stop()
        a.process.stop()
    }

    private static func ids(_ directory: URL) throws -> [String] {
        let result = try GalleryProcess.run(["-C", directory.path, "list", "alice", "--json"], timeout: 60)
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["items"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" }
    }
}
