import Foundation

/// Runs the `gallery` executable built next to this one as a child process, bounded in time.
///
/// Output goes to temporary files rather than pipes: `gallery serve` children started meanwhile
/// by another thread could inherit a pipe's write end and keep it open, so that reading to its end
/// would wait for them.
enum GalleryCLI {
    /// What a finished command printed and returned.
    struct Result: Sendable {
        /// The exit status; -1 when it could not start, -9 when it was killed for taking too long.
        var status: Int32
        var stdout: String
        var stderr: String

        /// Exit 0.
        var ok: Bool { status == 0 }
    }

    /// `$GALLERY_BINARY`, else `gallery` in this executable's directory.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["GALLERY_BINARY"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: ChildRun.executablePath).deletingLastPathComponent().appendingPathComponent("gallery")
    }

    /// Runs `gallery ARGUMENTS`, its output kept in `scratch` while it runs; kills it after `timeout` seconds.
    static func run(_ arguments: [String], scratch: URL, timeout: Double) -> Result {
        let name = UUID().uuidString
        let outURL = scratch.appendingPathComponent("\(name).out"), errURL = scratch.appendingPathComponent("\(name).err")
        guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
              FileManager.default.createFile(atPath: errURL.path, contents: nil),
              let out = FileHandle(forWritingAtPath: outURL.path), let err = FileHandle(forWritingAtPath: errURL.path) else {
            return Result(status: -1, stdout: "", stderr: "cannot create output files in \(scratch.path)")
        }
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            try? out.close()
            try? err.close()
            return Result(status: -1, stdout: "", stderr: "cannot start \(executable.path): \(error.localizedDescription)")
        }
        try? out.close()
        try? err.close()
        var killed = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            killed = true
        }
        let stdout = String(decoding: FileManager.default.contents(atPath: outURL.path) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: FileManager.default.contents(atPath: errURL.path) ?? Data(), as: UTF8.self)
        return Result(status: killed ? -9 : process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}
