import Foundation

/// A point in a page's viewport, in CSS pixels.
package struct PagePoint: Hashable, Sendable, CustomStringConvertible {
    /// Distance from the viewport's left edge.
    package var x: Double
    /// Distance from the viewport's top edge.
    package var y: Double

    /// Makes a point.
    package init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// "(x, y)".
    package var description: String { "(\(x), \(y))" }
}

/// One tab or window of a `Browser`, with its flat DevTools session.
package final class BrowserPage: Sendable {
    /// The browser this page belongs to.
    package let browser: Browser
    /// The DevTools target ID.
    package let targetId: String
    /// The flat session ID its commands carry.
    package let sessionId: String

    init(browser: Browser, targetId: String, sessionId: String) {
        self.browser = browser
        self.targetId = targetId
        self.sessionId = sessionId
    }

    /// Sends a command in this page's session and returns its result.
    @discardableResult
    package func send(_ method: String, _ params: [String: Any] = [:]) throws(BrowserError) -> [String: Any] {
        try browser.pipe.send(method, params, session: sessionId, timeout: browser.options.commandTimeout)
    }

    /// Removes and returns the first event named `method` of this page (buffered or arriving within `timeout`).
    package func waitForEvent(_ method: String, timeout: Duration = .seconds(10),
                             matching: (DevToolsEvent) -> Bool = { _ in true }) throws(BrowserError) -> DevToolsEvent {
        try browser.pipe.waitForEvent(method, session: sessionId, timeout: timeout, matching: matching)
    }

    /// Navigates to `url` and waits for the load event.
    package func navigate(to url: String, timeout: Duration = .seconds(15)) throws(BrowserError) {
        browser.pipe.discardEvents("Page.loadEventFired", session: sessionId)
        let result = try send("Page.navigate", ["url": url])
        if let failure = result["errorText"] as? String, !failure.isEmpty {
            throw .protocolError("Page.navigate \(url)", failure)
        }
        _ = try waitForEvent("Page.loadEventFired", timeout: timeout)
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its JSON value (nil for undefined/null).
    /// - Throws: `.javaScript` with the exception text when the script throws.
    @discardableResult
    package func evaluate(_ expression: String) throws(BrowserError) -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let details = result["exceptionDetails"] as? [String: Any] {
            let exception = details["exception"] as? [String: Any]
            throw .javaScript(exception?["description"] as? String ?? details["text"] as? String ?? "\(details)")
        }
        let value = (result["result"] as? [String: Any])?["value"]
        return value is NSNull ? nil : value
    }

    /// Evaluates `expression` and returns it as a string (nil when it is not one).
    package func evaluateString(_ expression: String) throws(BrowserError) -> String? {
        try evaluate(expression) as? String
    }

    /// Polls the JavaScript `predicate` every 20 ms until it is truthy.
    /// - Throws: `.timeout` naming the predicate when `timeout` passes first.
    package func waitFor(_ predicate: String, timeout: Duration = .seconds(5)) throws(BrowserError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try evaluate("Boolean(\(predicate))") as? Bool == true { return }
            if ContinuousClock.now >= deadline { throw .timeout("the page condition \(predicate)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The centre of the first element matching `selector`, scrolled into view first.
    package func center(of selector: String) throws(BrowserError) -> PagePoint {
        let script = """
            (() => { const e = document.querySelector(\(Self.jsString(selector)));
              if (!e) return null; e.scrollIntoView({block: 'nearest', inline: 'nearest'});
              const r = e.getBoundingClientRect(); if (r.width === 0 && r.height === 0) return null;
              return [r.left + r.width / 2, r.top + r.height / 2]; })()
            """
        guard let pair = try evaluate(script) as? [Any], pair.count == 2,
              let x = (pair[0] as? NSNumber)?.doubleValue, let y = (pair[1] as? NSNumber)?.doubleValue
        else { throw .elementNotFound(selector) }
        return PagePoint(x: x, y: y)
    }

    /// Saves a PNG of the viewport to `url`.
    package func screenshot(to url: URL) throws(BrowserError) {
        let result = try send("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw .unexpectedReply("base64 PNG data")
        }
        do { try data.write(to: url) } catch {
            throw .unexpectedReply("a writable screenshot path \(url.path): \(error.localizedDescription)")
        }
    }

    /// Closes this tab or window.
    package func close() {
        _ = try? browser.pipe.send("Target.closeTarget", ["targetId": targetId], timeout: .seconds(5))
    }

    /// `text` as a JavaScript string literal (JSON-escaped).
    package static func jsString(_ text: String) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: [text]),
              let array = String(data: data, encoding: .utf8) else { return "\"\"" }
        return String(array.dropFirst().dropLast())
    }
}
