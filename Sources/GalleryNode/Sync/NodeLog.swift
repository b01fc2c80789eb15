import Foundation

/// Where a node reports what happens to its connections: one line per event.
public struct NodeLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// A log that passes each line to `sink`.
    public init(_ sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Writes each line to standard error.
    public static let standardError = NodeLog { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Drops every line.
    public static let silent = NodeLog { _ in }

    package func callAsFunction(_ line: String) {
        sink(line)
    }
}
