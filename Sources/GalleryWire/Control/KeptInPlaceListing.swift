/// The files a node serves from where they are (`gallery add --in-place`), as `status --json`
/// prints them: how many, and those that cannot serve their bytes now.
///
/// JSON: `{"files": N, "problems": [{"path": P, "hash": H, "reason": R}]}`.
package struct KeptInPlaceListing: Codable, Hashable, Sendable {
    /// One file that is gone or changed on disk.
    package struct Problem: Codable, Hashable, Sendable {
        package var path: String
        package var hash: String
        /// "gone", "changed on disk (size 10 -> 12 bytes)", ...
        package var reason: String

        package init(path: String, hash: String, reason: String) {
            self.path = path
            self.hash = hash
            self.reason = reason
        }
    }

    /// Files kept in place.
    package var files: Int
    /// Those that cannot serve their bytes now (their items' bytes come from peers, if any hold
    /// them).
    package var problems: [Problem]

    package init(files: Int, problems: [Problem]) {
        self.files = files
        self.problems = problems
    }
}
