import Dispatch
import Foundation
import GalleryNode
import Synchronization

/// Runs the Trash's 30-day expiry (`TrashItems.expire`) on a serving node: a minute after it
/// starts, then every hour, off the node's inbox. A refusal (storage failed) is logged and tried
/// again at the next turn.
final class TrashExpiry: Sendable {
    /// The timer (Dispatch's sources are not `Sendable`: held in a `Mutex`, taken only to cancel).
    private let timer: Mutex<any DispatchSourceTimer>

    /// Starts the timer: a first run after `firstRun` seconds, then one every `interval`; `log` gets
    /// one line per run that deleted something, or failed.
    init(node: SyncNode, name: String, firstRun: Double = 60, interval: Double = 3600,
         log: @escaping @Sendable (String) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "gallery.trash-expiry", qos: .utility))
        timer.schedule(deadline: .now() + firstRun, repeating: interval, leeway: .milliseconds(Int(interval * 10)))
        timer.setEventHandler { [weak node] in
            guard let node else { return }
            do {
                let deleted = try TrashItems.expire(on: node)
                if deleted > 0 { log("\(name): deleted \(TrashItems.count(deleted)) kept in the Trash for more than 30 days") }
            } catch {
                log("\(name): Trash expiry failed: \(error.localizedDescription)")
            }
        }
        timer.resume()
        self.timer = Mutex(timer)
    }

    /// Stops the timer; a run under way finishes.
    func stop() {
        timer.withLock { $0.cancel() }
    }
}
