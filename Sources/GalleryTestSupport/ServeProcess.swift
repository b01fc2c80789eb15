import Foundation
import GalleryIO
import Synchronization

/// A `gallery` process under test (`serve` by default): started, read until it listens, stopped or
/// killed.
package final class ServeProcess: Sendable {
    private let process: Process
    private let output = Mutex<(stdout: String, stderr: String, closed: Int)>(("", "", 0))
    private let changed = DispatchSemaphore(value: 0)

    /// Starts `gallery serve ARGUMENTS` and waits (bounded) for its "listening on" line; with
    /// `serve: false`, starts `gallery ARGUMENTS` and waits for nothing. With `descriptorLimit`, the
    /// process runs with that many descriptors at most (`ulimit -n` in a shell that then execs it).
    /// `executable` runs another program than `gallery` (with `serve: false`; the benchmark's peers).
    package init(_ arguments: [String], serve: Bool = true, timeout: TimeInterval = 30, descriptorLimit: Int? = nil,
                 executable: URL = GalleryProcess.executable) throws {
        let process = Process()
        let command = (serve ? ["serve"] : []) + arguments
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", executable.path] + command
        } else {
            process.executableURL = executable
            process.arguments = command
        }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        self.process = process
        try SpawnSignalMask.cleared { try process.run() }
        for (pipe, isError) in [(stdout, false), (stderr, true)] {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    output.withLock { output in
                        if isError { output.stderr += String(decoding: data, as: UTF8.self) } else {
                            output.stdout += String(decoding: data, as: UTF8.self)
                        }
                    }
                    changed.signal()
                }
                try? handle.close()
                output.withLock { $0.closed += 1 }
                changed.signal()
            }
        }
        let deadline = Date().addingTimeInterval(serve ? timeout : 0)
        while endpoint == nil && process.isRunning && Date() < deadline {
            _ = changed.wait(timeout: .now() + 0.2)
        }
    }

    /// Standard output so far.
    package var standardOutput: String { output.withLock { $0.stdout } }

    /// Waits (bounded) until standard output holds `count` lines; true when it does.
    package func waitForLines(_ count: Int, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while standardOutput.split(separator: "\n").count < count && Date() < deadline {
            _ = changed.wait(timeout: .now() + 0.2)
        }
        return standardOutput.split(separator: "\n").count >= count
    }

    /// The address from the "listening on HOST:PORT" line, once printed.
    package var endpoint: Endpoint? {
        let text = output.withLock { $0.stdout }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) else { return nil }
        return Endpoint(String(line.dropFirst("listening on ".count)))
    }

    package var standardError: String { output.withLock { $0.stderr } }

    /// The process's ID (to read /proc/PID).
    package var processID: Int32 { process.processIdentifier }

    /// Whether the process is still running.
    package var isRunning: Bool { process.isRunning }

    /// Waits (bounded) for the process to exit by itself; its status, nil if it did not.
    package func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return nil }
        // The output pipes are drained by their threads: wait (bounded) until both reach their end.
        let drained = Date().addingTimeInterval(5)
        while Date() < drained, output.withLock({ $0.closed }) < 2 { _ = changed.wait(timeout: .now() + 0.05) }
        return process.terminationStatus
    }

    /// Sends a signal and waits (bounded) for the process to exit; returns its status, nil if it did not.
    @discardableResult
    package func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 20) -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
