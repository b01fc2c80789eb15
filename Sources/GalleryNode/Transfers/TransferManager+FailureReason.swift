import GalleryModel

extension TransferManager {
    /// Why the transfer filling `placeholder` failed (`hash mismatch`, `cancelled`, ...), from the
    /// moment its failure is decided (before its placeholder's delete is made) until the outcome
    /// is forgotten; nil for a transfer that did not fail or is unknown here. What an adapter shows
    /// next to the placeholder's deletion.
    package func failureReason(of placeholder: OpID) -> String? {
        lock.withLock {
            if let reason = failureReasons[placeholder] { return reason }
            if case .failed(let reason) = outcomes[placeholder] { return reason }
            return nil
        }
    }
}
