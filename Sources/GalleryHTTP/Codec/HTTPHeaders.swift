/// An ordered list of header fields. Names keep the case they were given in; every lookup ignores
/// ASCII case (field names are case-insensitive).
package struct HTTPHeaders: Hashable, Sendable, Sequence {
    /// The fields in the order they were received or added.
    private var list = HTTPPairs()

    /// The fields in the order they were received or added.
    package var fields: [(name: String, value: String)] { list.elements }

    /// An empty list.
    package init() {}

    /// A list of the given fields, in order.
    package init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name, value) }
    }

    /// Appends a field.
    package mutating func add(_ name: String, _ value: String) {
        list.append(name, value)
    }

    /// Replaces every field named `name` with one field holding `value`.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field named `name`.
    package mutating func remove(_ name: String) {
        list.removeAll { Self.sameName($0, name) }
    }

    /// The value of the first field named `name`, or nil.
    package subscript(name: String) -> String? {
        list.first { Self.sameName($0, name) }
    }

    /// Every value of the fields named `name`, in order.
    package func values(_ name: String) -> [String] {
        list.values { Self.sameName($0, name) }
    }

    /// The comma-separated list elements of every field named `name`, trimmed and lower-cased
    /// (for token lists such as `Connection`).
    package func tokens(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }
            .filter { !$0.isEmpty }
    }

    /// True when two field names are equal ignoring ASCII case.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
        }
    }

    /// The number of fields.
    package var count: Int { list.elements.count }

    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        list.elements.makeIterator()
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and horizontal tabs (HTTP's optional whitespace).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[first...last])
        return text
    }
}
