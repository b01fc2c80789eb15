import Foundation
import GalleryWire

/// Transfers as `status` shows them.
extension TransferManager {
    /// The transfers in flight, oldest drop first.
    func listings() -> [TransferListing] {
        let now = calendarNow
        return lock.withLock {
            transfers.values.sorted { $0.placeholder < $1.placeholder }.map { transfer in
                let download = downloads[transfer.hash]
                let state: String = switch download?.phase {
                case .fetching(_, _, _, let name)?: "fetching from \(name)"
                case .finishing?: "verifying"
                case .opening?: "opening"
                case .waiting?, nil: "waiting for a peer holding the bytes"
                }
                return TransferListing(
                    transfer: transfer.placeholder.description, source: transfer.source.description, hash: transfer.hash,
                    done: download?.done ?? 0, total: transfer.size, move: transfer.move, state: state,
                    secondsLeft: max(0, transfer.deadline.timeIntervalSince(now)))
            }
        }
    }
}
