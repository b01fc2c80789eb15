/// What a `MinHeap` orders: whether one element comes out before another.
package protocol HeapOrdered {
    /// Whether `self` comes out of the heap before `other`.
    func precedes(_ other: Self) -> Bool
}

/// A binary min-heap: the liveness deadlines of a node (`LivenessDeadlines`), the events of a
/// simulated mesh (`SimulationScheduler`).
///
/// - Complexity: `push` and `pop` are O(log n).
package struct MinHeap<Element: HeapOrdered> {
    private var items: [Element] = []

    /// An empty heap.
    package init() {}

    /// Whether nothing waits.
    package var isEmpty: Bool { items.isEmpty }
    /// How many elements wait.
    package var count: Int { items.count }
    /// The element that comes out next.
    package var first: Element? { items.first }

    /// Adds an element.
    package mutating func push(_ element: Element) {
        items.append(element)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].precedes(items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the element that comes out first.
    package mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let first = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && items[left].precedes(items[smallest]) { smallest = left }
            if right < items.count && items[right].precedes(items[smallest]) { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
