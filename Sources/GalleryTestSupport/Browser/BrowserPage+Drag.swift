import Foundation

/// The payload of a drag as DevTools carries it (`Input.DragData`): items by MIME type, file paths,
/// and the allowed operations (1 copy, 2 link, 16 move).
package struct DragData: Sendable {
    /// `raw` serialized: JSON bytes are `Sendable`, a `[String: Any]` is not.
    private let json: Data

    /// The JSON object sent back in `Input.dispatchDragEvent`.
    package var raw: [String: Any] {
        (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
    }

    /// Wraps an `Input.dragIntercepted` payload.
    package init(raw: [String: Any]) {
        json = (try? JSONSerialization.data(withJSONObject: raw)) ?? Data("{}".utf8)
    }

    /// Files "from the desktop": absolute paths the page reads through `dataTransfer.files`.
    package static func files(_ paths: [String], operations: Int = 1) -> DragData {
        DragData(raw: ["items": [Any](), "files": paths, "dragOperationsMask": operations])
    }

    /// The items, as (MIME type, data) pairs in order.
    package var items: [(mimeType: String, data: String)] {
        (raw["items"] as? [[String: Any]] ?? []).map { ($0["mimeType"] as? String ?? "", $0["data"] as? String ?? "") }
    }

    /// The data of the first item of `mimeType`, or nil.
    package func item(_ mimeType: String) -> String? {
        items.first { $0.mimeType == mimeType }?.data
    }

    /// The allowed operations mask (1 copy, 2 link, 16 move).
    package var operations: Int { raw["dragOperationsMask"] as? Int ?? 0 }
}

/// Real HTML5 drags with `Input.setInterceptDrags`: the mouse starts the drag in the source page (which
/// gets `dragstart` and fills its `DataTransfer`), Chromium hands the payload to us instead of running
/// its own drag loop, and we deliver it with `Input.dispatchDragEvent` to any page, the same or another
/// window, which gets `dragenter`, `dragover` and `drop` as from a person.
extension BrowserPage {
    /// Presses the mouse on `source`, moves 10 px and then to `toward`, and returns the intercepted payload.
    /// Interception stays on until `finishDrag`.
    package func startInterceptedDrag(from source: PagePoint, toward: PagePoint,
                                     timeout: Duration = .seconds(5)) throws(BrowserError) -> DragData {
        browser.pipe.discardEvents("Input.dragIntercepted", session: sessionId)
        try send("Input.setInterceptDrags", ["enabled": true])
        try mouse("mouseMoved", at: source)
        try mouse("mousePressed", at: source, button: "left", buttons: 1, clickCount: 1)
        // The payload comes after the first or the second move, so make both before waiting.
        try mouse("mouseMoved", at: PagePoint(x: source.x + 10, y: source.y + 10), button: "left", buttons: 1)
        try mouse("mouseMoved", at: toward, button: "left", buttons: 1)
        let event = try waitForEvent("Input.dragIntercepted", timeout: timeout)
        guard let data = event.params["data"] as? [String: Any] else { throw .unexpectedReply("drag data") }
        return DragData(raw: data)
    }

    /// Moves a drag over `point` in this page without dropping (dragEnter, dragOver).
    package func dragOver(_ data: DragData, at point: PagePoint, modifiers: KeyModifiers = []) throws(BrowserError) {
        for type in ["dragEnter", "dragOver"] {
            try send("Input.dispatchDragEvent", ["type": type, "x": point.x, "y": point.y, "data": data.raw,
                                                 "modifiers": modifiers.rawValue])
        }
    }

    /// Drops `data` on `point` in this page (dragEnter, dragOver, drop).
    package func drop(_ data: DragData, at point: PagePoint, modifiers: KeyModifiers = []) throws(BrowserError) {
        try dragOver(data, at: point, modifiers: modifiers)
        try send("Input.dispatchDragEvent", ["type": "drop", "x": point.x, "y": point.y, "data": data.raw,
                                             "modifiers": modifiers.rawValue])
    }

    /// Ends the gesture in the source page: `dragCancel` first when the drop happened elsewhere (the
    /// source then gets `dragend` with `dropEffect` "none"; DevTools cannot report a cross-window move),
    /// then the mouse release, then interception off.
    package func finishDrag(_ data: DragData, at point: PagePoint, droppedElsewhere: Bool) throws(BrowserError) {
        if droppedElsewhere {
            try send("Input.dispatchDragEvent", ["type": "dragCancel", "x": point.x, "y": point.y, "data": data.raw])
        }
        try mouse("mouseReleased", at: point, button: "left", buttons: 0, clickCount: 1)
        try send("Input.setInterceptDrags", ["enabled": false])
    }

    /// Drags the element matching `source` onto the element matching `target` in this page; returns the payload.
    @discardableResult
    package func drag(_ source: String, to target: String, modifiers: KeyModifiers = []) throws(BrowserError) -> DragData {
        let from = try center(of: source)
        let to = try center(of: target)
        let data = try startInterceptedDrag(from: from, toward: to)
        try drop(data, at: to, modifiers: modifiers)
        try finishDrag(data, at: to, droppedElsewhere: false)
        return data
    }

    /// Drags the element matching `source` in this page onto the element matching `target` in `page`
    /// (another tab or window); returns the payload.
    @discardableResult
    package func drag(_ source: String, to target: String, in page: BrowserPage,
                     modifiers: KeyModifiers = []) throws(BrowserError) -> DragData {
        let from = try center(of: source)
        let to = try page.center(of: target)
        let data = try startInterceptedDrag(from: from, toward: PagePoint(x: from.x + 40, y: from.y + 40))
        try page.drop(data, at: to, modifiers: modifiers)
        try finishDrag(data, at: from, droppedElsewhere: true)
        return data
    }

    /// Drops files (absolute paths) on the element matching `target`, as from a file manager.
    package func dropFiles(_ paths: [String], on target: String, modifiers: KeyModifiers = []) throws(BrowserError) {
        try drop(.files(paths), at: center(of: target), modifiers: modifiers)
    }
}
