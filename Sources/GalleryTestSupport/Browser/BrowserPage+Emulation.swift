import Foundation

/// Screens, colour schemes and touch: a page as a phone (390 px, touch) or a desktop (1440 px), light
/// or dark, and real touch input (`Input.dispatchTouchEvent`, as from a finger).
extension BrowserPage {
    /// Sizes the viewport to `width` x `height` CSS pixels; `mobile` also turns on touch (5 points)
    /// and the mobile viewport, as a phone's browser has them.
    package func emulateScreen(width: Int, height: Int, mobile: Bool) throws(BrowserError) {
        try send("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile])
        try send("Emulation.setTouchEmulationEnabled", ["enabled": mobile, "maxTouchPoints": mobile ? 5 : 1])
    }

    /// `prefers-color-scheme: dark` (or light) for this page.
    package func emulateColorScheme(dark: Bool) throws(BrowserError) {
        try send("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": dark ? "dark" : "light"]]])
    }

    /// One touch event with `points` (each finger's position; ids in order).
    package func touch(_ type: String, _ points: [PagePoint]) throws(BrowserError) {
        let touchPoints: [[String: Any]] = points.enumerated().map { ["x": $1.x, "y": $1.y, "id": $0, "radiusX": 4, "radiusY": 4, "force": 1] }
        try send("Input.dispatchTouchEvent", ["type": type, "touchPoints": touchPoints])
    }

    /// A tap at `point`: one finger down and up.
    package func tap(at point: PagePoint) throws(BrowserError) {
        try touch("touchStart", [point])
        try touch("touchEnd", [])
    }

    /// Long-presses `source` until the page's `pressed` condition holds, then moves the finger to
    /// `target` in `steps` and lifts it.
    package func longPressDrag(from source: PagePoint, to target: PagePoint, until pressed: String, steps: Int = 8) throws(BrowserError) {
        try touch("touchStart", [source])
        try waitFor(pressed, timeout: .seconds(5))
        for step in 1...steps {
            let f = Double(step) / Double(steps)
            try touch("touchMove", [PagePoint(x: source.x + (target.x - source.x) * f, y: source.y + (target.y - source.y) * f)])
        }
        try touch("touchEnd", [])
    }

    /// Two fingers around `center`, `from` apart, spreading (or closing) to `to` apart in `steps`.
    package func pinch(at center: PagePoint, from: Double, to: Double, steps: Int = 6) throws(BrowserError) {
        func fingers(_ distance: Double) -> [PagePoint] {
            [PagePoint(x: center.x - distance / 2, y: center.y), PagePoint(x: center.x + distance / 2, y: center.y)]
        }
        try touch("touchStart", fingers(from))
        for step in 1...steps { try touch("touchMove", fingers(from + (to - from) * Double(step) / Double(steps))) }
        try touch("touchEnd", [])
    }

    /// Types `text` into the focused element (`Input.insertText`, as an input method does).
    package func insertText(_ text: String) throws(BrowserError) {
        try send("Input.insertText", ["text": text])
    }
}
