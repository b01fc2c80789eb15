import GalleryIO
import GalleryNode

/// Keep the port: `gallery serve DIR` without `--listen` listens where it listened last time
/// (recorded in the address book, `DIR/peers`) when that port is free, else on an ephemeral port
/// of the same host (which the node announces to its peers).
enum KeptPort {
    /// The default when the node never listened before: loopback, an ephemeral port.
    static let fallback = Endpoint(host: "127.0.0.1", port: 0)

    /// Where to listen, given the stored book.
    static func choose(from store: some AddressBookStore, log: NodeLog) -> Endpoint {
        guard case .loaded(let book) = store.loadBook(), let text = book.listen, let last = Endpoint(text), last.port != 0 else {
            return fallback
        }
        do {
            // Free now? (The listener sets SO_REUSEADDR, so closing it leaves the port bindable.)
            let probe = try Listener(last)
            probe.close()
            return last
        } catch {
            log("port \(last.port) of the last run is taken (\(error.localizedDescription)); listening on an ephemeral port")
            return Endpoint(host: last.host, port: 0)
        }
    }
}
