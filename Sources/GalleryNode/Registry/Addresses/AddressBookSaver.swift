import Synchronization

/// Stores the address book off the node's loop: the loop hands over each new version, and a
/// thread of its own writes the latest one (versions handed over meanwhile are skipped).
final class AddressBookSaver: Sendable {
    private let store: any AddressBookStore
    private let log: NodeLog
    private let thread = WorkThread(name: "address-book")
    /// The version waiting to be written, and whether the last write failed (logged once).
    private let state = Mutex<(waiting: AddressBook?, failing: Bool)>((nil, false))

    init(store: any AddressBookStore, log: NodeLog) {
        self.store = store
        self.log = log
    }

    /// Queues `book` to be written.
    func save(_ book: AddressBook) {
        let first = state.withLock { state -> Bool in
            defer { state.waiting = book }
            return state.waiting == nil
        }
        guard first else { return }
        thread.async { [self] in
            guard let book = state.withLock({ state -> AddressBook? in
                defer { state.waiting = nil }
                return state.waiting
            }) else { return }
            do {
                try store.saveBook(book)
                state.withLock { $0.failing = false }
            } catch {
                let report = state.withLock { state -> Bool in
                    defer { state.failing = true }
                    return !state.failing
                }
                if report { log("cannot write the address book \(store.location): \(error.localizedDescription)") }
            }
        }
    }

    /// Waits until every queued version is written.
    func drain() {
        thread.drain()
    }
}
