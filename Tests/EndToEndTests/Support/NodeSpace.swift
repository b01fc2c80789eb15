import Foundation
import GalleryIO
import GalleryTestSupport
import Testing

/// A space of named `gallery serve` processes in one temporary folder, sharing the first node's
/// secret: started, stopped, killed and restarted (on the same address) by name, and driven with
/// the command line.
final class NodeSpace: @unchecked Sendable {
    // `@unchecked Sendable`: used by one test at a time, from its own thread.
    let base: URL
    private var nodes: [String: ServeProcess] = [:]
    private var addresses: [String: String] = [:]
    private var peersOf: [String: [String]] = [:]
    /// The first node started: the others join its space with its secret.
    private var founder: String?
    /// The nodes that joined with an invitation code: never given the founder's secret file.
    private var joined: Set<String> = []

    init() {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-space-\(UUID().uuidString)")
    }

    /// The directory of a node.
    func directory(_ name: String) -> URL { base.appendingPathComponent(name) }

    /// Starts (or restarts, on its earlier address unless `keepAddress` is false: then without
    /// `--listen`) a node that dials `peers` (started nodes, or addresses "HOST:PORT" such as a
    /// relay's), with at most `descriptorLimit` descriptors if given.
    func start(_ name: String, peers: [String] = [], descriptorLimit: Int? = nil, keepAddress: Bool = true,
               options: [String] = []) throws {
        if !peers.isEmpty { peersOf[name] = peers }
        var arguments = [directory(name).path, "--name", name] + options
        if keepAddress, let address = addresses[name] { arguments += ["--listen", address] }
        // A node that joins by invitation (`--join CODE`) gets the secret from its inviter.
        if options.contains("--join") { joined.insert(name) }
        if let founder, founder != name, !joined.contains(name) {
            arguments += ["--secret-file", directory(founder).appendingPathComponent("secret").path]
        }
        founder = founder ?? name
        for peer in peersOf[name] ?? [] {
            arguments += ["--peer", try #require(addresses[peer] ?? (Endpoint(peer) != nil ? peer : nil), "\(peer) was never started")]
        }
        let process = try ServeProcess(arguments, descriptorLimit: descriptorLimit)
        let endpoint = try #require(process.endpoint, "\(name) did not start: \(process.standardError)")
        addresses[name] = endpoint.description
        nodes[name] = process
    }

    /// The running process of a node.
    func process(_ name: String) -> ServeProcess? { nodes[name] }

    /// The address a node listens on, once started.
    func address(_ name: String) -> Endpoint? { addresses[name].flatMap(Endpoint.init) }

    /// Stops a node with SIGTERM; true when it exited 0.
    @discardableResult
    func stop(_ name: String) -> Bool {
        nodes.removeValue(forKey: name)?.stop() == 0
    }

    /// Kills a node with SIGKILL (kill -9).
    func kill(_ name: String) {
        nodes.removeValue(forKey: name)?.stop(signal: SIGKILL)
    }

    /// What a running node printed on standard error so far.
    func standardError(of name: String) -> String {
        nodes[name]?.standardError ?? ""
    }

    /// Stops every node and removes the folder.
    func tearDown() {
        for name in Array(nodes.keys) { stop(name) }
        try? FileManager.default.removeItem(at: base)
    }

    /// Runs `gallery -C DIR(name) ARGUMENTS`.
    @discardableResult
    func gallery(_ name: String, _ arguments: String...) throws -> GalleryProcess.Result {
        try gallery(name, arguments)
    }

    /// Runs `gallery -C DIR(name) ARGUMENTS`.
    @discardableResult
    func gallery(_ name: String, _ arguments: [String]) throws -> GalleryProcess.Result {
        try GalleryProcess.run(["-C", directory(name).path] + arguments)
    }

    /// The items of a gallery as node `name` lists them (`list --json`); nil when the gallery is unknown there.
    func items(on name: String, _ gallery: String) throws -> [[String: Any]]? {
        let result = try GalleryProcess.run(["-C", directory(name).path, "list", gallery, "--json"])
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else { return nil }
        return object["items"] as? [[String: Any]]
    }

    /// Values of one key of a gallery's items on a node.
    func column(_ key: String, on name: String, _ gallery: String) throws -> [String] {
        try (items(on: name, gallery) ?? []).map { "\($0[key] ?? "nil")" }
    }

    /// Polls `condition` every 50 ms for at most `timeout` seconds; true once it held.
    func waitUntil(timeout: TimeInterval = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    /// Writes a PNG of `width` x `height` whose file is about `bytes` long (random chunk data
    /// behind a valid header), and returns its path.
    func image(_ name: String, width: UInt32 = 40, height: UInt32 = 30, bytes: Int = 4_096) throws -> String {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        var data: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        for value in [width, height] { data += withUnsafeBytes(of: value.bigEndian, Array.init) }
        data += [8, 2, 0, 0, 0, 0, 0, 0, 0]
        var generator = SystemRandomNumberGenerator()
        var words = (0..<(max(0, bytes - data.count) + 7) / 8).map { _ in generator.next() as UInt64 }
        data += words.withUnsafeBytes { Array($0.prefix(max(0, bytes - data.count))) }
        words.removeAll()
        let path = base.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(data)))
        return path
    }
}
