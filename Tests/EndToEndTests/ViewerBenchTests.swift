import Foundation
import GalleryTestSupport
import Testing

/// `gallery-bench viewer` on a small budget (60 photos of 800x600, 3 viewer openings): it runs to
/// the end against real nodes and headless Chromium, the grid asks for no original, and every
/// opening fetched its original from the peer. The figures (300 photos of 6000x4000) are in
/// BENCHMARKS.md, not checked here.
@Suite("gallery-bench viewer", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct ViewerBenchTests {
    @Test("gallery-bench viewer --photos 60 --samples 3 --pixels 800x600: grid and viewer lines")
    func smallRun() throws {
        let bench = GalleryProcess.executable.deletingLastPathComponent().appendingPathComponent("gallery-bench")
        let arguments = ["viewer", "--photos", "60", "--samples", "3", "--pixels", "800x600"]
        let result = try GalleryProcess.run(arguments, executable: bench, timeout: 600)
        #expect(result.status == 0, "gallery-bench \(arguments.joined(separator: " ")):\n\(result.stdout)\n\(result.stderr)")
        print("viewer bench: \(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        var lines: [String: [String: Any]] = [:]
        for line in result.stdout.split(separator: "\n") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let name = object["workload"] as? String { lines[name] = object }
        }
        let grid = try #require(lines["viewer-grid"], "no viewer-grid line")
        #expect(grid["photos"] as? Int == 60)
        #expect(grid["originalRequests"] as? Int == 0, "the grid asked for originals")
        #expect(grid["thumbnailRequests"] as? Int ?? 0 >= 60, "scrolled to the bottom, every tile asked for its thumbnail")
        let first = grid["firstScreenBytes"] as? Int ?? 0, all = grid["allBytes"] as? Int ?? 0
        #expect(first > 0 && all >= first)
        #expect(grid["scrollFrames"] as? Int ?? 0 > 0)
        let open = try #require(lines["viewer-open"], "no viewer-open line")
        #expect(open["samples"] as? Int == 3)
        #expect(open["originalsFetchedFromAlice"] as? Int == 3)
        #expect((open["thumbnail1280P50Ms"] as? Double ?? 0) > 0 && (open["originalP50Ms"] as? Double ?? 0) > 0, "\(open)")
    }

    @Test("gallery-bench viewer with a bad option exits 64 with the usage")
    func badOption() throws {
        let bench = GalleryProcess.executable.deletingLastPathComponent().appendingPathComponent("gallery-bench")
        let result = try GalleryProcess.run(["viewer", "--pixels", "big"], executable: bench, timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--pixels needs WIDTHxHEIGHT"))
    }
}
