import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the built `gallery` executable (or another) as a real process, bounded in time: the one
/// way the end-to-end tests and `gallery-bench` run a command.
///
/// Input and output go through temporary files rather than pipes: `gallery serve` children started
/// meanwhile by another thread could inherit a pipe's write end and keep it open, so that reading
/// to its end would wait for them.
package enum GalleryProcess {
    /// What a finished run printed and returned.
    package struct Result: Sendable {
        /// The exit status; -9 when it was killed for taking too long.
        package var status: Int32
        /// Everything written to standard output.
        package var stdout: String
        /// Everything written to standard error.
        package var stderr: String

        /// Exit 0.
        package var ok: Bool { status == 0 }

        package init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// The repository root (for `demo/` files).
    package static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of the running executable (`gallery-bench`, a test bundle): `/proc/self/exe` on
    /// Linux, else the first argument.
    package static var currentExecutablePath: String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return path
        }
        #endif
        return CommandLine.arguments[0]
    }

    /// `$GALLERY_BINARY`, else the `gallery` binary built next to the running executable (or next
    /// to the test bundle holding it).
    package static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["GALLERY_BINARY"] { return URL(fileURLWithPath: path) }
        var directory = URL(fileURLWithPath: currentExecutablePath).deletingLastPathComponent()
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
            || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("gallery")
    }

    /// Runs `gallery ARGUMENTS` (or another executable) with `input` on standard input, its output
    /// kept in files in `scratch` while it runs; kills it after `timeout` seconds.
    ///
    /// - Throws: when the files cannot be made or the process cannot start.
    package static func run(_ arguments: [String], executable: URL = executable, input: Data = Data(),
                           timeout: TimeInterval = 60,
                           scratch: URL = FileManager.default.temporaryDirectory) throws -> Result {
        let name = "gallery-process-\(UUID().uuidString)"
        let inURL = scratch.appendingPathComponent("\(name).in")
        let outURL = scratch.appendingPathComponent("\(name).out"), errURL = scratch.appendingPathComponent("\(name).err")
        defer {
            for url in [inURL, outURL, errURL] { try? FileManager.default.removeItem(at: url) }
        }
        guard FileManager.default.createFile(atPath: inURL.path, contents: input),
              FileManager.default.createFile(atPath: outURL.path, contents: nil),
              FileManager.default.createFile(atPath: errURL.path, contents: nil),
              let inHandle = FileHandle(forReadingAtPath: inURL.path),
              let out = FileHandle(forWritingAtPath: outURL.path), let err = FileHandle(forWritingAtPath: errURL.path) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: scratch.path])
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = inHandle
        process.standardOutput = out
        process.standardError = err
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        // This process's copies are closed once the child has its own: left open, they leaked
        // (about three descriptors a run), and past 1,024 descriptors Foundation's socket thread
        // `select`s out of bounds.
        defer {
            for handle in [inHandle, out, err] { try? handle.close() }
        }
        try SpawnSignalMask.cleared { try process.run() }
        for handle in [inHandle, out, err] { try? handle.close() }
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
