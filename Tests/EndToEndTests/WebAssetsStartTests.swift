import Foundation
import GalleryTestSupport
import Testing

/// `gallery serve DIR --http` with `GALLERY_WEB_ASSETS` naming no directory: the node does not
/// start (a page without its files is no page), and says why in one line naming the variable.
@Suite("GALLERY_WEB_ASSETS at start")
struct WebAssetsStartTests {
    @Test("a missing GALLERY_WEB_ASSETS directory stops `gallery serve --http` with one clear line")
    func missingDirectory() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-assets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let missing = base.appendingPathComponent("no-page").path
        // `env` sets the variable for the child only.
        let result = try GalleryProcess.run(
            ["GALLERY_WEB_ASSETS=\(missing)", GalleryProcess.executable.path, "serve", base.appendingPathComponent("node").path,
             "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"],
            executable: URL(fileURLWithPath: "/usr/bin/env"), timeout: 60)
        #expect(result.status != 0 && result.status != -9, "status \(result.status): \(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("GALLERY_WEB_ASSETS=\(missing): no such directory"), "\(result.stderr)")
        #expect(!result.stdout.contains("listening on"), "\(result.stdout)")
    }
}
