import Foundation
import GalleryTestSupport
import Synchronization

/// One `gallery serve` child of a chaos run: started, killed with SIGKILL, paused with SIGSTOP,
/// resumed, and restarted on the same directory and the same address (so that its peers redial it).
/// The fault thread changes its run while workers read its state.
final class ChaosNode: Sendable {
    /// Whether the node can be talked to.
    enum State: Sendable {
        case running, paused, dead
    }

    let name: String
    /// The node's DIR.
    let directory: URL
    /// Standard error of every run of the node, appended.
    let logFile: URL
    /// Addresses of the nodes it dials (`--peer`).
    let peers: [String]
    /// The space's secret to join with (`--secret-file`); nil for the first node, which creates it.
    let secretFile: URL?

    /// The node's current process, its state, its address and how many times it started.
    private struct Run {
        var process: Process?
        var state = State.dead
        var listenAddress: String?
        var starts = 0
    }

    private let run = Mutex(Run())

    init(name: String, folder: URL, peers: [String], secretFile: URL?) {
        self.name = name
        self.directory = folder.appendingPathComponent(name)
        self.logFile = folder.appendingPathComponent("\(name).log")
        self.peers = peers
        self.secretFile = secretFile
    }

    /// Where it listens, once started.
    var address: String? { run.withLock { $0.listenAddress } }

    /// Running, paused or dead.
    var currentState: State { run.withLock { $0.state } }

    /// Starts the node (on the address it had, if it ran before) and waits, bounded, until it listens.
    /// Retries when the address is briefly taken (a restart right after kill -9).
    func start() throws(ChaosError) {
        var lastError = ""
        for _ in 0..<40 {
            do {
                try startOnce()
                return
            } catch {
                lastError = error.localizedDescription
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        throw .setup("\(name) did not start: \(lastError)")
    }

    /// kill -9, and reaps the process.
    func kill9() {
        guard let process = takeProcess() else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The running (or paused) process, which the node forgets: it is dead from now on.
    private func takeProcess() -> Process? {
        run.withLock { run -> Process? in
            defer {
                run.process = nil
                run.state = .dead
            }
            return run.process
        }
    }

    /// SIGSTOP: the node keeps its sockets but answers nothing.
    func pause() {
        run.withLock { run in
            guard run.state == .running, let process = run.process else { return }
            kill(process.processIdentifier, SIGSTOP)
            run.state = .paused
        }
    }

    /// SIGCONT after `pause`.
    func resume() {
        run.withLock { run in
            guard run.state == .paused, let process = run.process else { return }
            kill(process.processIdentifier, SIGCONT)
            run.state = .running
        }
    }

    /// Stops the node with SIGTERM (resuming it first), or SIGKILL if it does not exit within 10 s.
    func stop() {
        guard let process = takeProcess() else { return }
        kill(process.processIdentifier, SIGCONT)
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The last `count` lines of the node's log.
    func logTail(_ count: Int = 20) -> String {
        let text = String(decoding: FileManager.default.contents(atPath: logFile.path) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").suffix(count).joined(separator: "\n")
    }

    private func startOnce() throws(ChaosError) {
        let (listen, start) = run.withLock { run -> (String, Int) in
            run.starts += 1
            return (run.listenAddress ?? "127.0.0.1:0", run.starts)
        }
        var arguments = ["serve", directory.path, "--name", name, "--listen", listen]
        for peer in peers { arguments += ["--peer", peer] }
        if let secretFile { arguments += ["--secret-file", secretFile.path] }
        let outURL = directory.deletingLastPathComponent().appendingPathComponent("\(name).out\(start)")
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: logFile.path) { _ = fileManager.createFile(atPath: logFile.path, contents: nil) }
        guard fileManager.createFile(atPath: outURL.path, contents: nil),
              let out = FileHandle(forWritingAtPath: outURL.path), let log = FileHandle(forWritingAtPath: logFile.path) else {
            throw .setup("cannot create the output files of \(name)")
        }
        _ = try? log.seekToEnd()
        try? log.write(contentsOf: Data("--- chaos: start \(start) of \(name) on \(listen)\n".utf8))
        defer { try? fileManager.removeItem(at: outURL) }
        let process = Process()
        process.executableURL = GalleryProcess.executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = log
        do {
            try process.run()
        } catch {
            try? out.close()
            try? log.close()
            throw .setup("cannot start \(GalleryProcess.executable.path): \(error.localizedDescription)")
        }
        try? out.close()
        try? log.close()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = String(decoding: fileManager.contents(atPath: outURL.path) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                run.withLock { run in
                    run.listenAddress = String(line.dropFirst("listening on ".count))
                    run.process = process
                    run.state = .running
                }
                return
            }
            guard process.isRunning else {
                throw .setup("\(name) exited with status \(process.terminationStatus): \(logTail(3))")
            }
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw .setup("\(name) did not print its address within 30 s")
    }
}
