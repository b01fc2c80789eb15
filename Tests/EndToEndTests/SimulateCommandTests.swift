import Foundation
import GalleryTestSupport
import Testing

/// `gallery simulate` as a user runs it: the real binary, its output and its exit codes.
@Suite("gallery simulate")
struct SimulateCommandTests {
    @Test("The demo schedule prints the contract's JSON and exits 0")
    func demoSchedule() throws {
        let path = GalleryProcess.repositoryRoot.appendingPathComponent("demo/conflict.json").path
        let result = try GalleryProcess.run(["simulate", path])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let view = #"{"g": [{"label": "p", "title": "p", "state": "ready"}, {"label": "a", "title": "a", "state": "ready"}, {"label": "c", "title": "new title", "state": "ready"}]}"#
        #expect(result.stdout == #"{"converged": true, "replicas": {"A": \#(view), "B": \#(view)}}"# + "\n")
    }

    @Test("A schedule on standard input, with a placeholder and an unsynced replica")
    func standardInput() throws {
        let schedule = #"""
            {"replicas": ["A", "B"], "steps": [
              {"at": "A", "createGallery": "g"},
              {"at": "A", "insertPlaceholder": ["p"], "gallery": "g", "index": 0}]}
            """#
        let result = try GalleryProcess.run(["simulate", "-"], input: Data(schedule.utf8))
        #expect(result.status == 0)
        #expect(result.stdout == #"{"converged": false, "replicas": {"A": {"g": [{"label": "p", "title": "p", "state": "placeholder"}]}, "B": {}}}"# + "\n")
    }

    @Test("Bad schedules: a one-line error naming the step, the usage, exit 64", arguments: [
        (#"{"replicas": ["A"], "steps": [{"at": "A", "createGallery": "g"}, {"at": "A", "delete": "zz"}]}"#,
         #"gallery: step 2: unknown label "zz""#),
        (#"{"replicas": ["A"], "steps": [{"at": "Q", "createGallery": "g"}]}"#,
         #"gallery: step 1: unknown replica "Q""#),
        (#"{"replicas": ["A"], "steps": [{"at": "A", "createGallery": "g"}, {"at": "A", "insert": ["a"], "gallery": "g", "index": 9}]}"#,
         "gallery: step 2: index 9 out of range (count 0)"),
        (#"{"replicas": ["A"], "steps": [{"at": "A", "insert": ["a"], "gallery": "nope", "index": 0}]}"#,
         #"gallery: step 1: no gallery named "nope""#),
        (#"{"replicas": ["A"], "steps": [{"at": "A", "createGallery": "g", "index": 1}]}"#,
         #"gallery: step 1: unknown key "index""#),
        (#"{"replicas": ["A"], "steps": [{"at": "A", "createGallery": "g"}"#,
         "gallery: malformed schedule: not valid JSON"),
        (#"{"replicas": "A", "steps": []}"#,
         #"gallery: malformed schedule: "replicas" must be an array of names"#),
    ])
    func badSchedules(schedule: String, message: String) throws {
        let result = try GalleryProcess.run(["simulate", "-"], input: Data(schedule.utf8))
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first.map(String.init) == message)
        #expect(lines.dropFirst().first?.hasPrefix("usage: gallery simulate") == true)
    }

    @Test("Bad command lines exit 64 with a message and usage", arguments: [
        [String](), ["frobnicate"], ["simulate"], ["simulate", "a.json", "b.json"], ["help", "nope"],
    ])
    func badCommandLines(arguments: [String]) throws {
        let result = try GalleryProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("gallery: "))
        #expect(result.stderr.contains("usage: gallery"))
    }

    @Test("A missing file is a usage error naming the file")
    func missingFile() throws {
        let result = try GalleryProcess.run(["simulate", "/nonexistent/schedule.json"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("gallery: cannot read /nonexistent/schedule.json"))
    }
}
