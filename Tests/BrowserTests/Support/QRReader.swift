import Foundation
import GalleryTestSupport

/// An independent QR decoder for the page's QR codes: `zbarimg` from Debian's `zbar-tools`
/// (`.ci/run` installs it). Like `BrowserBinary`, a missing reader skips the tests that need it with
/// a loud message, except under `CI=true`, where they run and fail.
enum QRReader {
    /// `GALLERY_ZBARIMG` when set, else the first `zbarimg` on the usual paths and `PATH`.
    static var path: String? {
        if let override = ProcessInfo.processInfo.environment["GALLERY_ZBARIMG"], !override.isEmpty { return override }
        let folders = ["/usr/bin", "/usr/local/bin"] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return folders.map { $0 + "/zbarimg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let installHint = "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends zbar-tools"

    /// True when the QR tests should run: a reader exists, or CI requires them (and they will fail).
    static var testsEnabled: Bool {
        guard BrowserBinary.testsEnabled else { return false }
        if path != nil || BrowserBinary.isCI { return true }
        FileHandle.standardError.write(Data("""
            !! QR TESTS SKIPPED: no zbarimg found (GALLERY_ZBARIMG, /usr/bin, /usr/local/bin, PATH)
            !! Install it with: \(installHint)

            """.utf8))
        return false
    }

    enum Failure: LocalizedError {
        case notInstalled
        case failed(status: Int32, stderr: String)
        var errorDescription: String? {
            switch self {
            case .notInstalled: "zbarimg is not installed: \(QRReader.installHint)"
            case .failed(let status, let stderr): "zbarimg found no QR code (status \(status)): \(stderr)"
            }
        }
    }

    /// The texts of the QR codes `zbarimg` finds in the PNG `png` (saved as `file`, which is kept).
    static func decode(_ png: Data, savedAs file: URL) throws -> [String] {
        guard let path else { throw Failure.notInstalled }
        try png.write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--nodbus", "-q", "--raw", "-Sdisable", "-Sqrcode.enable", file.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        let problems = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure.failed(status: process.terminationStatus, stderr: String(decoding: problems, as: UTF8.self))
        }
        return String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

extension BrowserPage {
    /// A PNG of the element `selector` exactly (its bounding box, device pixels at scale 1).
    func capture(_ selector: String) throws -> Data {
        let box = try evaluate("(() => { const r = document.querySelector(\(Self.jsString(selector))).getBoundingClientRect(); "
                               + "return [r.left, r.top, r.width, r.height]; })()") as? [Double] ?? []
        guard box.count == 4 else { throw BrowserError.elementNotFound(selector) }
        let shot = try send("Page.captureScreenshot", ["format": "png", "clip": ["x": box[0], "y": box[1], "width": box[2],
                                                                                  "height": box[3], "scale": 1]])
        return Data(base64Encoded: shot["data"] as? String ?? "") ?? Data()
    }

    /// What the PNG `png` of a QR code with `module`-pixel modules holds, read back by this page:
    /// `[width, height, pixels neither pure black nor pure white, non-white pixels in the 4-module
    /// quiet zone, pixels unlike the top-left pixel of their module's square]`.
    func pixelCensus(_ png: Data, module: Int) throws -> [Int] {
        let border = 4 * module
        let script = """
            (async () => { const img = new Image(); img.src = 'data:image/png;base64,\(png.base64EncodedString())'; await img.decode();
              const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
              const g = c.getContext('2d'); g.drawImage(img, 0, 0); const d = g.getImageData(0, 0, c.width, c.height).data;
              let grey = 0, edge = 0, blurred = 0;
              for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
                const i = (y * c.width + x) * 4, r = d[i], gg = d[i + 1], b = d[i + 2];
                const black = r === 0 && gg === 0 && b === 0, white = r === 255 && gg === 255 && b === 255;
                if (!black && !white) grey++;
                const j = ((y - y % \(module)) * c.width + (x - x % \(module))) * 4;
                if (r !== d[j] || gg !== d[j + 1] || b !== d[j + 2]) blurred++;
                if (!white && (x < \(border) || y < \(border) || x >= c.width - \(border) || y >= c.height - \(border))) edge++;
              }
              return [c.width, c.height, grey, edge, blurred]; })()
            """
        return (try evaluate(script) as? [NSNumber] ?? []).map(\.intValue)
    }
}
