import Foundation

/// `gallery-bench model` runs each workload in a child process and relays its JSON line;
/// `gallery-bench model --only W3` runs one workload in this process.
func runBench(_ arguments: [String]) -> Int32 {
    do {
        switch arguments {
        case ["model"]:
            return try runAllInChildren()
        case let arguments where arguments.count == 3 && arguments[0] == "model" && arguments[1] == "--only":
            guard ModelWorkloads.names.contains(arguments[2]) else {
                throw BenchFailure.usage("unknown workload \"\(arguments[2])\"")
            }
            writeLine(try ModelWorkloads.run(arguments[2]).json, to: .standardOutput)
            return 0
        case ["sync"]:
            for line in try SyncBenchmark.run() { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "sync" && arguments.dropFirst().first == "catch-up":
            for line in try SyncBenchmark.runCatchUps(Array(arguments.dropFirst(2))) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "node":
            for line in try NodeBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "commit":
            for line in try CommitBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case ["startup"]:
            for line in try StartupBenchmark.run() { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "flood":
            for line in try FloodBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case ["hash"]:
            for line in try HashBenchmark.run() { writeLine(line, to: .standardOutput) }
            return 0
        case ["hash", "--kernel"]:
            writeLine(HashBenchmark.kernelLine(), to: .standardOutput)
            return 0
        case ["crypto"]:
            for line in try CryptoBenchmark.run() { writeLine(line, to: .standardOutput) }
            return 0
        case ["crypto", "--kernel"]:
            writeLine(CryptoBenchmark.kernelLine(), to: .standardOutput)
            return 0
        case ["transfer"]:
            for line in try TransferBenchmark.run() { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "import":
            for line in try ImportBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "transfer" && arguments.dropFirst().first == "--drop-latency":
            for line in try TransferBenchmark.dropLatencyRounds(Array(arguments.dropFirst(2))) { writeLine(line, to: .standardOutput) }
            return 0
        case ["transfer", "--sweep"]:
            for line in try TransferBenchmark.sweep() { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "load":
            for line in try LoadBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "catchup":
            for line in try CatchUpLoadBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "scale":
            for line in try ScaleBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "chaos":
            do {
                return try ChaosRun.main(Array(arguments.dropFirst()))
            } catch .usage(let message) {
                throw BenchFailure.usage(message)
            } catch {
                throw BenchFailure.failed("chaos: \(error.localizedDescription)")
            }
        case let arguments where arguments.first == "web":
            for line in try WebBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "thumbs-arrival":
            for line in try ArrivalBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "viewer":
            for line in try ViewerBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "thumbs":
            for line in try ThumbsBenchmark.run(Array(arguments.dropFirst())) { writeLine(line, to: .standardOutput) }
            return 0
        case let arguments where arguments.first == "syncthing":
            return try SideBySideBenchmark.run(Array(arguments.dropFirst()))
        case let arguments where arguments.first == "watch":
            return try WatchBenchmark.run(Array(arguments.dropFirst()))
        case let arguments where arguments.first == "mesh-sim":
            return try MeshSimBenchmark.run(Array(arguments.dropFirst()))
        case ["help"], ["--help"], ["-h"]:
            writeLine(BenchUsage.text, to: .standardOutput)
            return 0
        case []:
            throw BenchFailure.usage("missing suite")
        default:
            throw BenchFailure.usage("unknown arguments \"\(arguments.joined(separator: " "))\"")
        }
    } catch let failure as BenchFailure {
        writeLine("gallery-bench: \(failure.message)", to: .standardError)
        if failure.isUsage {
            writeLine(BenchUsage.text, to: .standardError)
            return 64
        }
        return 1
    } catch {
        writeLine("gallery-bench: \(error.localizedDescription)", to: .standardError)
        return 1
    }
}

/// Runs every model workload in its own child process, relaying each child's JSON line as it
/// finishes; returns 1 if any child failed (its error is on standard error), else 0.
func runAllInChildren() throws -> Int32 {
    var status: Int32 = 0
    for name in ModelWorkloads.names {
        let child = try ChildRun.run(["model", "--only", name])
        for line in child.output.split(separator: "\n") {
            writeLine(String(line), to: .standardOutput)
        }
        if child.status != 0 {
            writeLine("gallery-bench: \(name) failed (exit status \(child.status))", to: .standardError)
            status = 1
        }
    }
    return status
}

/// Writes a line unbuffered, so that lines appear as each workload ends.
func writeLine(_ line: String, to handle: FileHandle) {
    // A reader that went away (`| head`) is not an error of the benchmark.
    try? handle.write(contentsOf: Data((line + "\n").utf8))
}

exit(runBench(Array(CommandLine.arguments.dropFirst())))
