import Foundation

/// A node in a child process (`gallery-bench node --serve DIR`), so that its resident memory is
/// its own: started, measured through `/proc/PID/status`, stopped by closing its standard input.
final class ServedNode {
    private let process = Process()
    private let input = Pipe()
    /// What the child wrote to standard output up to its `listening on` line.
    private(set) var greeting = ""

    /// Starts the node on `directory` (by default with `node --serve DIR`; `arguments` runs another
    /// child that prints `listening on HOST:PORT` once it serves) and waits until it serves (at most
    /// `timeout` seconds).
    init(directory: URL, arguments: [String]? = nil, timeout: TimeInterval = 120) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: ChildRun.executablePath)
        process.arguments = arguments ?? ["node", "--serve", directory.path]
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw BenchFailure.failed("cannot start \(ChildRun.executablePath): \(error.localizedDescription)")
        }
        // A child that never says it listens is killed, which ends the read below.
        let watchdog = DispatchWorkItem { [process] in process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        var text = ""
        while !text.contains("listening on ") || !text.hasSuffix("\n") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw BenchFailure.failed("the node on \(directory.path) did not start: \(text)") }
            text += String(decoding: data, as: UTF8.self)
        }
        greeting = text
    }

    /// `VmRSS` and `VmHWM` of the node, in bytes.
    func memory() throws -> (resident: Int, peak: Int) {
        // procfs reports a size of 0: read to the end.
        let path = "/proc/\(process.processIdentifier)/status"
        guard let file = FileHandle(forReadingAtPath: path), let data = try? file.readToEnd(),
              let text = String(data: data, encoding: .utf8) else {
            throw BenchFailure.failed("cannot read \(path) (Linux only)")
        }
        try? file.close()
        func field(_ name: String) throws -> Int {
            for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
                let fields = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
                if fields.count == 2, fields[1] == "kB", let kilobytes = Int(fields[0]) { return kilobytes * 1024 }
            }
            throw BenchFailure.failed("no \(name) in \(path)")
        }
        return (try field("VmRSS"), try field("VmHWM"))
    }

    /// Closes the node's standard input and waits for it to stop.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
