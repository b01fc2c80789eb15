import Foundation
import GalleryTestSupport
import Testing

/// `gallery-bench web` on a small budget (300 items, 20 moves, an 8 MiB blob): it runs to the end
/// against real nodes and headless Chromium and prints its three lines with plausible figures. The
/// figures themselves (10,000 items, 200 moves, 256 MiB) are in BENCHMARKS.md, not checked here.
@Suite("gallery-bench web", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct WebBenchTests {
    @Test("gallery-bench web --items 300 --samples 20 --blob-mib 8 --paint-runs 1: grid, live moves, blob and paint lines")
    func smallRun() throws {
        let bench = GalleryProcess.executable.deletingLastPathComponent().appendingPathComponent("gallery-bench")
        let arguments = ["web", "--items", "300", "--samples", "20", "--blob-mib", "8", "--paint-runs", "1", "--reference-items", "40"]
        let result = try GalleryProcess.run(arguments, executable: bench, timeout: 180)
        #expect(result.status == 0, "gallery-bench \(arguments.joined(separator: " ")):\n\(result.stdout)\n\(result.stderr)")
        print("web bench: \(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        var lines: [String: [String: Any]] = [:]
        var paints: [String: [String: Any]] = [:]
        for line in result.stdout.split(separator: "\n") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let name = object["workload"] as? String {
                lines[name] = object
                if name == "web-paint", let way = object["way"] as? String { paints[way] = object }
            }
        }
        // The paint, by the token link and by the bookmark: the gallery and the reference, each once.
        for way in ["link", "bookmark"] {
            let paint = try #require(paints[way], "no web-paint line for \(way)")
            #expect(paint["items"] as? Int == 300 && paint["referenceItems"] as? Int == 40, "\(paint)")
            #expect((paint["medianMs"] as? Double ?? 0) > 0 && (paint["referenceMedianMs"] as? Double ?? 0) > 0, "\(paint)")
        }
        let grid = try #require(lines["web-grid"], "no web-grid line")
        #expect(grid["items"] as? Int == 300)
        #expect((grid["paintedMs"] as? Double ?? 0) > 0)
        #expect((grid["jsHeapMiB"] as? Double ?? 0) > 0)
        let live = try #require(lines["web-live"], "no web-live line")
        #expect(live["samples"] as? Int == 20)
        let p50 = live["p50Ms"] as? Double ?? -1, p99 = live["p99Ms"] as? Double ?? -1
        #expect(p50 > 0 && p99 >= p50, "\(live)")
        let blob = try #require(lines["web-blob"], "no web-blob line")
        #expect(blob["bytes"] as? Int == 8 * 1_048_576)
        #expect((blob["ratio"] as? Double ?? 0) > 0)
    }

    @Test("gallery-bench web with a bad option exits 64 with the usage")
    func badOption() throws {
        let bench = GalleryProcess.executable.deletingLastPathComponent().appendingPathComponent("gallery-bench")
        let result = try GalleryProcess.run(["web", "--items", "many"], executable: bench, timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--items needs a positive number"))
    }
}
