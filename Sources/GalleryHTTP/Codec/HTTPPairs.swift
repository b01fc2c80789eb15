/// Name-value pairs in order, a name possibly repeated: a query's items, a request's cookies, its
/// header fields. Two lists are equal when they hold the same pairs in the same order; how a name
/// is matched (case-sensitive or not) is the owner's choice, passed to each lookup.
package struct HTTPPairs: Hashable, Sendable {
    /// The pairs, in the order added.
    package private(set) var elements: [(name: String, value: String)] = []

    /// An empty list.
    package init() {}

    /// Appends a pair.
    mutating func append(_ name: String, _ value: String) {
        elements.append((name, value))
    }

    /// Removes every pair whose name `matches`.
    mutating func removeAll(named matches: (String) -> Bool) {
        elements.removeAll { matches($0.name) }
    }

    /// The value of the first pair whose name `matches`, or nil.
    func first(named matches: (String) -> Bool) -> String? {
        elements.first { matches($0.name) }?.value
    }

    /// Every value of the pairs whose name `matches`, in order.
    func values(named matches: (String) -> Bool) -> [String] {
        elements.filter { matches($0.name) }.map(\.value)
    }

    package static func == (lhs: HTTPPairs, rhs: HTTPPairs) -> Bool {
        lhs.elements.elementsEqual(rhs.elements) { $0.name == $1.name && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        for pair in elements {
            hasher.combine(pair.name)
            hasher.combine(pair.value)
        }
    }
}
