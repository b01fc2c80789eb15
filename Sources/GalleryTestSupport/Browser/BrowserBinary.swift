import Foundation

/// Where the Chromium binary is, and whether browser tests run, skip or fail without it.
///
/// Tests use `BrowserBinary.testsEnabled` as their `.enabled(if:)` condition: with a binary they run;
/// without one they are skipped with a loud message, except when `CI=true`, where they run and fail
/// (`Browser.launch()` throws `.notInstalled`), so a CI image without Chromium cannot pass silently.
package enum BrowserBinary {
    /// The paths tried, in order: only `GALLERY_CHROMIUM` when it is set, else Debian's binaries.
    /// `/usr/bin/chromium` is Debian's shell wrapper, which adds flags and prints noise, so the real
    /// binary is called directly.
    package static var candidates: [String] {
        if let override = ProcessInfo.processInfo.environment["GALLERY_CHROMIUM"], !override.isEmpty {
            return [override]
        }
        var paths = ["/usr/lib/chromium/chromium", "/usr/lib/chromium/chromium-headless-shell"]
        #if canImport(Darwin)
        paths.append("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome")
        paths.append("/Applications/Chromium.app/Contents/MacOS/Chromium")
        #endif
        return paths
    }

    /// The first executable candidate, or nil.
    package static var path: String? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// True when the environment says this is a CI run (`CI=true`).
    package static var isCI: Bool {
        ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true"
    }

    /// How to install the browser.
    package static let installHint =
        "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium"

    /// True when browser tests should run: a binary exists, or CI requires them (and they will fail).
    /// Prints a loud warning to stderr when they are skipped.
    package static var testsEnabled: Bool {
        if path != nil || isCI { return true }
        let banner = String(repeating: "!", count: 78)
        FileHandle.standardError.write(Data("""
            \(banner)
            !! BROWSER TESTS SKIPPED: no Chromium at \(candidates.joined(separator: ", "))
            !! Install it with: \(installHint)
            !! (With CI=true a missing browser fails the run instead.)
            \(banner)

            """.utf8))
        return false
    }
}
