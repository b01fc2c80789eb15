import Foundation
import GalleryTestSupport
import Testing

/// `gallery simulate` on the Trash's schedule (`demo/trash.json`): the real binary replays the rules
/// of docs/design.md section 6 and prints the Trash beside the galleries.
@Suite("gallery simulate: the Trash")
struct SimulateTrashTests {
    @Test("demo/trash.json: a trash wins over a concurrent move, an edit applies in the Trash, Empty Trash wins over a restore, an insert into a deleted gallery is in the Trash, a rename lands")
    func trashSchedule() throws {
        let path = GalleryProcess.repositoryRoot.appendingPathComponent("demo/trash.json").path
        let result = try GalleryProcess.run(["simulate", path])
        #expect(result.status == 0 && result.stderr.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["converged"] as? Bool == true)
        let replicas = try #require(object["replicas"] as? [String: [String: [[String: Any]]]])
        let trash = try #require(object["trash"] as? [String: [[String: Any]]])
        for name in ["A", "B"] {
            // b (trashed vs moved), c (trashed vs edited), d (restored vs deleted: gone), trip deleted (t, and x inserted into it).
            #expect(replicas[name]?.keys.sorted() == ["holiday"])
            #expect(replicas[name]?["holiday"]?.map { $0["label"] as? String } == ["a", "e"])
            #expect(trash[name]?.map { $0["label"] as? String } == ["x", "b", "c", "t"])
            #expect(trash[name]?.first { $0["label"] as? String == "c" }?["title"] as? String == "edited while trashed")
        }
    }
}
