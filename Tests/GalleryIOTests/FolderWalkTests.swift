import Foundation
@testable import GalleryIO
import Testing

/// The folder walk of `gallery add FOLDER`: regular files only, hidden names skipped at every
/// depth, symbolic links not followed, sorted by path.
@Suite("FolderWalk")
struct FolderWalkTests {
    @Test("Regular files under a folder, nested, sorted; hidden files and folders, links and FIFOs left out")
    func walk() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-walk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = FileManager.default
        for folder in ["b/deep", ".hidden", "a"] {
            try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for file in ["z.png", "a/1.jpg", "b/deep/2.gif", "b/0.png", ".dot.png", ".hidden/x.png"] {
            try Data([1]).write(to: root.appendingPathComponent(file))
        }
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("link.png").path, withDestinationPath: root.appendingPathComponent("z.png").path)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("linked-folder").path, withDestinationPath: root.appendingPathComponent("a").path)
        #expect(mkfifo(root.appendingPathComponent("pipe.png").path, 0o600) == 0)

        let expected = ["a/1.jpg", "b/0.png", "b/deep/2.gif", "z.png"].map { root.appendingPathComponent($0).path }
        #expect(FolderWalk.regularFiles(under: root.path) == expected)
        #expect(FolderWalk.regularFiles(under: root.path + "/") == expected)
        #expect(FolderWalk.regularFiles(under: root.appendingPathComponent("missing").path).isEmpty)
    }
}
