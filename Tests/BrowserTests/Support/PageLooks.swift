import Foundation
import GalleryTestSupport

/// The screens and colour schemes the page is tested at, and screenshots worth keeping.
enum PageLooks {
    /// A desktop window or a phone.
    struct Screen: CustomStringConvertible, Sendable {
        var width: Int
        var height: Int
        var mobile: Bool
        var description: String { mobile ? "phone \(width)px" : "desktop \(width)px" }
    }

    static let desktop = Screen(width: 1440, height: 900, mobile: false)
    static let phone = Screen(width: 390, height: 844, mobile: true)

    /// Puts `page` on `screen` in the light or dark scheme, and waits until the grid has laid out again.
    static func apply(_ screen: Screen, dark: Bool, to page: BrowserPage) throws {
        try page.emulateScreen(width: screen.width, height: screen.height, mobile: screen.mobile)
        try page.emulateColorScheme(dark: dark)
        try page.waitFor("window.innerWidth === \(screen.width)")
        try page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    }

    /// Saves a screenshot of `page` as NAME.png in the temporary folder (printing where) and, when
    /// GALLERY_DOCS_SCREENSHOTS is set, in docs/screenshots/ for the README.
    static func keep(_ page: BrowserPage, as name: String) throws {
        var targets = [FileManager.default.temporaryDirectory.appendingPathComponent("gallery-\(name).png")]
        if ProcessInfo.processInfo.environment["GALLERY_DOCS_SCREENSHOTS"] != nil {
            targets.append(GalleryProcess.repositoryRoot.appendingPathComponent("docs/screenshots/\(name).png"))
        }
        for target in targets {
            try page.screenshot(to: target)
            print("page test: screenshot \(name) saved to \(target.path)")
        }
    }

    /// The viewport of `page` as PNG bytes.
    static func capture(_ page: BrowserPage) throws -> Data {
        Data(base64Encoded: try page.send("Page.captureScreenshot", ["format": "png"])["data"] as? String ?? "") ?? Data()
    }

    /// Composes `shots` side by side on a dark ground in a new window of `browser`, and keeps it as NAME.png.
    static func keepSideBySide(_ shots: [Data], in browser: Browser, as name: String) throws {
        let canvas = try browser.newPage(url: "about:blank", newWindow: true)
        defer { canvas.close() }
        try canvas.send("Emulation.setDeviceMetricsOverride", ["width": 2400, "height": 1000, "deviceScaleFactor": 1, "mobile": false])
        let sources = shots.map { BrowserPage.jsString($0.base64EncodedString()) }.joined(separator: ", ")
        let size = (try canvas.evaluate("""
            (async () => { document.body.style.cssText = 'margin:0;background:#3a3d42;display:flex;gap:24px;padding:24px;align-items:flex-start;width:max-content';
              for (const data of [\(sources)]) { const img = new Image(); img.src = 'data:image/png;base64,' + data;
                img.style.cssText = 'border-radius:18px;box-shadow:0 8px 30px #0007'; document.body.appendChild(img); await img.decode(); }
              const images = [...document.images].map((i) => i.getBoundingClientRect());
              return [Math.ceil(Math.max(...images.map((r) => r.right)) + 24), Math.ceil(Math.max(...images.map((r) => r.bottom)) + 24)]; })()
            """) as? [NSNumber])?.map(\.doubleValue) ?? [2400, 1000]
        let shot = try canvas.send("Page.captureScreenshot", ["format": "png", "clip": ["x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1]])
        let png = Data(base64Encoded: shot["data"] as? String ?? "") ?? Data()
        var targets = [FileManager.default.temporaryDirectory.appendingPathComponent("gallery-\(name).png")]
        if ProcessInfo.processInfo.environment["GALLERY_DOCS_SCREENSHOTS"] != nil {
            targets.append(GalleryProcess.repositoryRoot.appendingPathComponent("docs/screenshots/\(name).png"))
        }
        for target in targets {
            try png.write(to: target)
            print("page test: screenshot \(name) saved to \(target.path)")
        }
    }

    /// Writes a PNG of `width` x `height` to a temporary file and returns its path.
    static func pictureFile(_ name: String, width: Int, height: Int) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-page-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(TestPictures.png(width: width, height: height, palette: 7)).write(to: file)
        return file.path
    }
}

extension BrowserPage {
    /// Sets the files of the `<input type=file>` matching `selector` (as a person picking them), which fires `change`.
    func pickFiles(_ paths: [String], in selector: String) throws {
        let document = try send("DOM.getDocument", ["depth": 0])
        let root = (document["root"] as? [String: Any])?["nodeId"] as? Int ?? 0
        let found = try send("DOM.querySelector", ["nodeId": root, "selector": selector])
        guard let node = found["nodeId"] as? Int, node != 0 else { throw BrowserError.elementNotFound(selector) }
        try send("DOM.setFileInputFiles", ["files": paths, "nodeId": node])
    }

    /// The bounding box of the first element matching `selector`: [left, top, right, bottom], or nil.
    func box(_ selector: String) throws -> [Double]? {
        try evaluate("(() => { const e = document.querySelector(\(Self.jsString(selector))); if (!e) return null; "
                     + "const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()") as? [Double]
    }
}
