import Foundation
import GalleryTestSupport

/// Two pages' screenshots composed side by side (the README's picture of two nodes' windows).
enum SideBySide {
    /// Composes the two pages' screenshots side by side in a third tab and saves the result to the
    /// temporary folder, and to docs/screenshots/two-nodes.png when GALLERY_DOCS_SCREENSHOTS is set.
    static func save(_ left: BrowserPage, _ right: BrowserPage, in browser: Browser, width: Int, height: Int) throws {
        func base64(_ page: BrowserPage) throws -> String {
            try page.send("Page.captureScreenshot", ["format": "png"])["data"] as? String ?? ""
        }
        let images = [try base64(left), try base64(right)]
        let canvas = try browser.newPage(url: "about:blank", newWindow: true)
        defer { canvas.close() }
        try canvas.send("Emulation.setDeviceMetricsOverride", ["width": width * 2 + 48, "height": height + 48,
                                                               "deviceScaleFactor": 1, "mobile": false])
        let size = try canvas.evaluate("""
            (async () => { document.body.style.cssText = 'margin:0;background:#3a3d42;display:flex;gap:16px;padding:16px;align-items:flex-start';
              const sizes = [];
              for (const data of [\(BrowserPage.jsString(images[0])), \(BrowserPage.jsString(images[1]))]) {
                const img = new Image(); img.src = 'data:image/png;base64,' + data;
                img.style.cssText = 'border-radius:10px;box-shadow:0 8px 30px #0007'; document.body.appendChild(img); await img.decode();
                sizes.push([img.naturalWidth, img.naturalHeight]); }
              return [sizes[0][0] + sizes[1][0] + 48, Math.max(sizes[0][1], sizes[1][1]) + 32]; })()
            """) as? [Double] ?? [Double(width * 2 + 48), Double(height + 32)]
        let shot = try canvas.send("Page.captureScreenshot", ["format": "png", "clip": ["x": 0, "y": 0, "width": size[0],
                                                                                         "height": size[1], "scale": 1]])
        let png = Data(base64Encoded: shot["data"] as? String ?? "") ?? Data()
        var targets = [FileManager.default.temporaryDirectory.appendingPathComponent("gallery-two-nodes.png")]
        if ProcessInfo.processInfo.environment["GALLERY_DOCS_SCREENSHOTS"] != nil {
            let root = GalleryProcess.repositoryRoot
            targets.append(root.appendingPathComponent("docs/screenshots/two-nodes.png"))
        }
        for target in targets {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try png.write(to: target)
            print("page test: two nodes side by side saved to \(target.path)")
        }
    }
}
