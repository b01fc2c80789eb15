import Foundation

/// Runs the built `gallery` executable as a real process, bounded in time.
struct GalleryProcess {
    /// What a finished run printed and returned.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The repository root (for `demo/` files).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `gallery` binary next to the test bundle, or `$GALLERY_BINARY`.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["GALLERY_BINARY"] { return URL(fileURLWithPath: path) }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
            || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("gallery")
    }

    /// Runs `gallery ARGUMENTS` (or another executable) with `input` on standard input; kills it
    /// after `timeout` seconds.
    static func run(_ arguments: [String], executable: URL = executable, input: Data = Data(),
                    timeout: TimeInterval = 60) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try SpawnSignalMask.cleared { try process.run() }
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        // Drain both pipes while the process runs, so a large output cannot block it.
        let output = DrainedPipe(stdout), errors = DrainedPipe(stderr)
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            finished.wait()
        }
        let result = Result(status: process.terminationStatus, stdout: output.text(), stderr: errors.text())
        // Close every end this process still holds: left to deinitialisers, they leaked (about three
        // descriptors a run), and past 1,024 descriptors Foundation's socket thread `select`s out
        // of bounds.
        for handle in [stdin.fileHandleForReading, stdout.fileHandleForReading, stderr.fileHandleForReading,
                       stdout.fileHandleForWriting, stderr.fileHandleForWriting] {
            try? handle.close()
        }
        return result
    }
}

/// Reads a pipe to its end on a background thread.
final class DrainedPipe: @unchecked Sendable {
    // The data is written once by the reading thread before `done` is signalled, then only read.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
