import Foundation
import GalleryTestSupport

/// Reading and driving the gallery page in tests.
extension BrowserPage {
    /// The captions of the grid's tiles in order (failed placeholders fading out excluded), comma-joined.
    func tileTitles() throws -> String {
        try evaluateString("[...document.querySelectorAll('#grid .tile:not(.failed)')].map(t => t.querySelector('.caption').textContent).join(',')") ?? ""
    }

    /// Waits until no tile is gliding or fading (finite animations ended), so that what the mouse hits
    /// is where the tile rests, as a person would wait to see it.
    func settle() throws {
        try waitFor("document.getAnimations().filter(a => a.effect.getTiming().iterations !== Infinity).length === 0")
    }

    /// The selector of the tile of item `id`.
    static func tile(_ id: String) -> String { ".tile[data-id=\"\(id)\"]" }

    /// A point inside the element matching `selector`: `fx` of its width from the left, in the middle vertically.
    func point(in selector: String, fx: Double = 0.5) throws -> PagePoint {
        let centre = try center(of: selector)
        guard let width = try evaluate("document.querySelector(\(Self.jsString(selector))).getBoundingClientRect().width") as? Double
        else { throw BrowserError.elementNotFound(selector) }
        return PagePoint(x: centre.x + (fx - 0.5) * width, y: centre.y)
    }

    /// Drags the element matching `source` to `target` in this page and drops it there.
    @discardableResult
    func dragAndDrop(from source: String, to target: PagePoint, modifiers: KeyModifiers = []) throws -> DragData {
        let data = try startInterceptedDrag(from: center(of: source), toward: target)
        try drop(data, at: target, modifiers: modifiers)
        try finishDrag(data, at: target, droppedElsewhere: false)
        return data
    }
}

/// Reading what a fake node was asked.
extension FakeNode {
    /// The JSON bodies of the change requests to `path`, in order.
    func requests(to path: String) -> [[String: Any]] {
        condition.withLock { changeRequests.filter { $0.path == path }.map(\.body) }
    }

    /// Blocks until `predicate` holds (checked under the lock at every change), at most `timeout`.
    func waitUntil(timeout: TimeInterval = 5, _ predicate: (FakeNode) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !predicate(self) {
            condition.lock()
            let woke = condition.wait(until: min(deadline, Date().addingTimeInterval(0.05)))
            condition.unlock()
            if !woke, Date() >= deadline { return predicate(self) }
        }
        return true
    }
}
