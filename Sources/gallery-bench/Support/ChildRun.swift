import Foundation
import GalleryTestSupport

/// Runs this executable again as a child process, so that each workload gets a fresh process and
/// its own peak resident set size.
enum ChildRun {
    /// The path of the running executable.
    static var executablePath: String { GalleryProcess.currentExecutablePath }

    /// Runs the executable with `arguments`, its standard error passed through, and returns what
    /// it wrote to standard output and its exit status.
    static func run(_ arguments: [String]) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw BenchFailure.failed("cannot start \(executablePath): \(error.localizedDescription)")
        }
        // Read before waiting, so that a child with much output cannot block on a full pipe.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }
}
