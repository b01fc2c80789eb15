import Foundation
import GalleryTestSupport

/// What one page downloaded, from DevTools' Network events (`Network.enable` on the page first):
/// every request's URL, and the bytes that came over the wire for it (`encodedDataLength` of
/// `Network.loadingFinished`: headers and body; 0 for one served from the memory cache).
/// Events are drained into the ledger as they are read, so a request that finishes after it was
/// first seen is still counted.
final class NetworkLedger {
    struct Request {
        let url: String
        var path: String { URLComponents(string: url)?.path ?? url }
        var bytes = 0
        var finished = false
    }

    private let page: BrowserPage
    private(set) var requests: [String: Request] = [:]
    private var order: [String] = []

    init(page: BrowserPage) {
        self.page = page
    }

    /// Reads the events buffered so far (waiting at most `wait` for the first of each kind).
    /// Returns how many were read.
    @discardableResult
    func drain(wait: Duration = .milliseconds(20)) -> Int {
        var read = 0
        while let event = try? page.waitForEvent("Network.requestWillBeSent", timeout: read == 0 ? wait : .milliseconds(1)) {
            read += 1
            guard let id = event.params["requestId"] as? String,
                  let url = (event.params["request"] as? [String: Any])?["url"] as? String else { continue }
            if requests[id] == nil { order.append(id) }
            // A redirect reuses the ID: the bytes of the final response are what counts.
            requests[id] = Request(url: url)
        }
        for name in ["Network.loadingFinished", "Network.loadingFailed"] {
            while let event = try? page.waitForEvent(name, timeout: .milliseconds(1)) {
                read += 1
                guard let id = event.params["requestId"] as? String else { continue }
                requests[id]?.finished = true
                if name == "Network.loadingFinished" {
                    requests[id]?.bytes = (event.params["encodedDataLength"] as? NSNumber)?.intValue ?? 0
                }
            }
        }
        return read
    }

    /// Waits until nothing is in flight (the event stream, which never ends, aside) and no event has
    /// come for `quiet`, at most `timeout`.
    func waitUntilIdle(quiet: Duration = .milliseconds(600), timeout: Duration = .seconds(120)) throws {
        let deadline = ContinuousClock.now + timeout
        var lastEvent = ContinuousClock.now
        while ContinuousClock.now < deadline {
            if drain(wait: .milliseconds(50)) > 0 { lastEvent = .now }
            let inFlight = requests.values.contains { !$0.finished && !$0.path.hasPrefix("/api/events") }
            if !inFlight && ContinuousClock.now - lastEvent >= quiet { return }
        }
        throw BenchFailure.failed("viewer: the page's requests did not settle in \(timeout)")
    }

    /// The requests in the order they were sent.
    var all: [Request] { order.compactMap { requests[$0] } }

    /// Bytes received so far, for requests whose path starts with `prefix` (all when empty).
    func bytes(_ prefix: String = "") -> Int {
        requests.values.filter { prefix.isEmpty || $0.path.hasPrefix(prefix) }.reduce(0) { $0 + $1.bytes }
    }

    /// Requests sent so far whose path starts with `prefix`.
    func count(_ prefix: String) -> Int {
        requests.values.filter { $0.path.hasPrefix(prefix) }.count
    }
}
