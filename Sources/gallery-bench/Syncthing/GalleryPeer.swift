import Foundation
import GalleryControl
import GalleryTestSupport
import GalleryWire

/// One of our nodes for the side-by-side benchmark: a `gallery serve` process (the release
/// `gallery` next to `gallery-bench`) on a directory of its own, driven by `gallery -C DIR`
/// commands as a user or a script drives it; the benchmark reads listings over the control socket
/// (`ControlClient`) where only the answer matters.
final class GalleryPeer {
    let name: String
    let directory: URL
    private let process: ServeProcess

    /// Starts `gallery serve DIR --name NAME`, dialing `peer` (and joining its space) when given.
    init(name: String, directory: URL, peer: GalleryPeer? = nil) throws {
        self.name = name
        self.directory = directory
        var arguments = [directory.path, "--name", name]
        if let peer, let address = peer.process.endpoint {
            arguments += ["--peer", "\(address)", "--secret-file", peer.directory.appendingPathComponent("secret").path]
        }
        process = try ServeProcess(arguments, timeout: 60)
        guard process.endpoint != nil else { throw BenchFailure.failed("gallery serve \(name) did not start: \(process.standardError)") }
    }

    var pid: Int32 { process.processID }

    /// Runs `gallery -C DIR ARGUMENTS` to its end and returns its standard output, its wall time and
    /// the CPU seconds it used itself (its own process, not the node's); throws unless it exits 0.
    @discardableResult
    func command(_ arguments: [String], input: String = "", timeout: TimeInterval = 1_800) throws -> (output: String, seconds: Double, cpu: Double) {
        let before = ChildCPU.seconds()
        let timed = try Stopwatch.time {
            try GalleryProcess.run(["-C", directory.path] + arguments, input: Data(input.utf8), timeout: timeout)
        }
        let cpu = ChildCPU.seconds() - before
        guard timed.result.ok else {
            throw BenchFailure.failed("gallery -C \(name) \(arguments.prefix(3).joined(separator: " ")) exited \(timed.result.status): \(timed.result.stderr.prefix(500))")
        }
        return (timed.result.stdout, timed.seconds, cpu)
    }

    /// The items of `gallery` in order (ID and state), read over the control socket; nil when
    /// the node has no such gallery (yet).
    func items(of gallery: String) throws -> [(id: String, state: String)]? {
        let response = try ControlClient.send(ControlRequest(id: 1, command: .list(gallery: gallery)), to: directory, timeout: .seconds(60))
        guard response.ok, let listing = response.reply?.galleries?.first(where: { $0.gallery == gallery }) else { return nil }
        return listing.items.map { ($0.id, $0.state) }
    }

    /// Waits until `gallery` on this node holds exactly `ids` in this order, all ready, polling
    /// every 10 ms.
    func waitForItems(_ ids: [String], in gallery: String, timeout: TimeInterval = 600) throws {
        try waitUntil("the expected \(ids.count) items of \(gallery)", timeout: timeout, { items in
            items.count == ids.count && items.allSatisfy({ $0.state == "ready" }) && items.map(\.id) == ids
        }, in: gallery)
    }

    /// Waits until `gallery` on this node holds `count` items.
    func waitForCount(_ count: Int, in gallery: String, timeout: TimeInterval = 600) throws {
        try waitUntil("\(count) items in \(gallery)", timeout: timeout, { $0.count == count }, in: gallery)
    }

    /// Waits until this node has a gallery of that name.
    func waitForGallery(_ gallery: String, timeout: TimeInterval) throws {
        try waitUntil("the gallery \(gallery)", timeout: timeout, { _ in true }, in: gallery)
    }

    /// Polls `gallery`'s listing every 10 ms until `condition` holds of it.
    private func waitUntil(_ what: String, timeout: TimeInterval, _ condition: ([(id: String, state: String)]) -> Bool, in gallery: String) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let items = try items(of: gallery), condition(items) { return }
            usleep(10_000)
        }
        throw BenchFailure.failed("\(name) did not show \(what) in \(Int(timeout)) s")
    }

    /// Stops the node (SIGTERM).
    func stop() {
        process.stop()
    }
}

/// The CPU seconds of this process's ended children (`getrusage(RUSAGE_CHILDREN)`): read before
/// and after one command, the difference is that command's own CPU.
enum ChildCPU {
    static func seconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
