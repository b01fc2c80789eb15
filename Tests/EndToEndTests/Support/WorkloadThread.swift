import Foundation
import GalleryTestSupport
import Synchronization

/// Runs a random workload of `gallery -C DIR` commands on a thread of its own, one command at a
/// time, until told to stop or until a command fails.
///
/// Each acknowledged command (exit status 0) goes into the model. The first command that fails
/// ends the workload and is returned as the command in flight: after a kill it may or may not have
/// happened. A failure while `expectFailures` is false is a finding, listed in `failures`.
final class WorkloadThread: Sendable {
    /// What the workload left when it ended.
    struct Outcome: Sendable {
        /// The command that failed (in flight at the kill), if one did.
        var pending: WorkloadCommand?
        /// Commands that failed although the node was not being killed, or that the model refused.
        var failures: [String] = []
        /// Commands acknowledged in this run.
        var acknowledged = 0
    }

    /// Set before the node is killed (and to end the workload of a node left running).
    let stop = Atomic<Bool>(false)
    private let outcome = Mutex<Outcome?>(nil)
    private let current = Mutex<(command: String, started: Date)?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts the workload on the node serving `directory`, drawing commands from `model`.
    init(directory: URL, model: SharedModel, round: Int, expectFailures: Bool) {
        Thread.detachNewThread { [self] in
            var result = Outcome()
            while !stop.load(ordering: .acquiring) {
                let (command, arguments) = model.withLock { model in
                    let command = model.nextCommand(round: round)
                    let names = model.names
                    return (command, command.arguments(replica: model.replica) { names[$0] ?? "unknown-\($0)" })
                }
                current.withLock { $0 = ("\(arguments)", Date()) }
                let run: GalleryProcess.Result
                do {
                    run = try GalleryProcess.run(["-C", directory.path] + arguments, timeout: 20)
                } catch {
                    result.failures.append("\(command): cannot run gallery: \(error)")
                    result.pending = command
                    break
                }
                guard run.status == 0 else {
                    // Read the flag after the failure: it is set before the kill is sent.
                    if !(expectFailures && stop.load(ordering: .acquiring)) {
                        result.failures.append("\(command) failed with \(run.status) while the node was up: \(run.stderr)")
                    }
                    result.pending = command
                    break
                }
                current.withLock { $0 = nil }
                do {
                    try model.withLock { try $0.acknowledge(command, output: run.stdout) }
                    result.acknowledged += 1
                } catch {
                    result.failures.append("acknowledged \(command) (\(arguments)), but: \(error.localizedDescription)")
                    break
                }
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// The command running now and for how long, for a report when the workload does not end.
    var running: String {
        current.withLock { current in
            current.map { "\($0.command) for \(String(format: "%.1f", Date().timeIntervalSince($0.started))) s" } ?? "nothing"
        }
    }

    /// Asks the workload to stop and waits (bounded) for it; nil if it did not end in time.
    func finish(timeout: TimeInterval = 30) -> Outcome? {
        stop.store(true, ordering: .releasing)
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return outcome.withLock { $0 }
    }
}
