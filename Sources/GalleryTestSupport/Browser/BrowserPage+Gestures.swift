import Foundation

/// Double-clicks, touches and a phone's viewport, as real input events (`Input.dispatchMouseEvent`,
/// `Input.dispatchTouchEvent`, `Emulation.*`), and the page's network requests as DevTools reports them.
extension BrowserPage {
    /// A left double-click at `point`: two press/release pairs, the second with `clickCount` 2 (which
    /// is what makes Chromium fire `dblclick`).
    package func doubleClick(at point: PagePoint) throws(BrowserError) {
        try mouse("mouseMoved", at: point)
        for count in 1...2 {
            try mouse("mousePressed", at: point, button: "left", buttons: 1, clickCount: count)
            try mouse("mouseReleased", at: point, button: "left", buttons: 0, clickCount: count)
        }
    }

    /// A double-click on the centre of the first element matching `selector`.
    package func doubleClick(_ selector: String) throws(BrowserError) {
        try doubleClick(at: center(of: selector))
    }

    /// Makes the viewport `width`x`height` CSS pixels at `scale` device pixels each; `mobile` also
    /// turns on touch input (so that touches make taps and clicks, as on a phone).
    package func emulateViewport(width: Int, height: Int, scale: Double = 1, mobile: Bool = false) throws(BrowserError) {
        try send("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile])
        try send("Emulation.setTouchEmulationEnabled", ["enabled": mobile, "maxTouchPoints": mobile ? 5 : 1])
    }

    /// One finger down at `points[0]`, moved through the rest 16 ms apart, held still at the last
    /// for 100 ms and lifted: a tap when there is one point, a swipe otherwise (held, so that it
    /// ends with no velocity: a fling would swallow the next tap, as it stops the fling).
    package func touch(_ points: [PagePoint]) throws(BrowserError) {
        guard let first = points.first, let last = points.last else { return }
        var time = Date().timeIntervalSince1970
        try send("Input.dispatchTouchEvent", ["type": "touchStart", "touchPoints": [["x": first.x, "y": first.y]], "timestamp": time])
        for point in points.dropFirst() {
            time += 0.016
            try send("Input.dispatchTouchEvent", ["type": "touchMove", "touchPoints": [["x": point.x, "y": point.y]], "timestamp": time])
        }
        if points.count > 1 {
            time += 0.1
            try send("Input.dispatchTouchEvent", ["type": "touchMove", "touchPoints": [["x": last.x, "y": last.y]], "timestamp": time])
        }
        try send("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": [], "timestamp": time + 0.01])
    }

    /// A tap on the centre of the first element matching `selector`.
    package func tap(_ selector: String) throws(BrowserError) {
        try touch([center(of: selector)])
    }

    /// Starts recording the page's network requests (`Network.enable`); read them with `takeRequests`.
    package func recordRequests() throws(BrowserError) {
        try send("Network.enable", [:])
    }

    /// The requests sent since the last call (after `recordRequests`): URL and the bytes received for
    /// each that finished (`encodedDataLength`: headers and body as they came over the wire; 0 for one
    /// served from the memory cache). Waits `quiet` for stragglers.
    package func takeRequests(quiet: Duration = .milliseconds(100)) -> [(url: String, bytes: Int)] {
        var urls: [String: String] = [:]
        var order: [String] = []
        while let event = try? waitForEvent("Network.requestWillBeSent", timeout: quiet) {
            guard let id = event.params["requestId"] as? String,
                  let url = (event.params["request"] as? [String: Any])?["url"] as? String else { continue }
            if urls[id] == nil { order.append(id) }
            urls[id] = url
        }
        var received: [String: Int] = [:]
        while let event = try? waitForEvent("Network.loadingFinished", timeout: quiet) {
            guard let id = event.params["requestId"] as? String else { continue }
            received[id] = (event.params["encodedDataLength"] as? NSNumber)?.intValue ?? 0
        }
        while (try? waitForEvent("Network.loadingFailed", timeout: .milliseconds(1))) != nil {}
        return order.map { (urls[$0] ?? "", received[$0] ?? 0) }
    }
}
