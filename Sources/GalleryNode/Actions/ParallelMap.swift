import Foundation
import Synchronization

/// A map spread over the machine's cores (reading many files' headers), with the results and the
/// first error in the order of the input, as a plain `map` gives them.
enum ParallelMap {
    /// Inputs handed to one worker at a time: few enough that the cores share the work evenly,
    /// many enough that taking the next batch costs nothing beside the work.
    private static let batch = 64

    /// `elements.map(transform)`, run on every core; throws the error of the first element (in
    /// order) whose transform threw. Small inputs are mapped on the calling thread.
    static func ordered<Element: Sendable, Mapped: Sendable>(
        _ elements: [Element], _ transform: @Sendable (Element) throws -> Mapped
    ) throws -> [Mapped] {
        guard elements.count > batch, ProcessInfo.processInfo.activeProcessorCount > 1 else { return try elements.map(transform) }
        let results = Mutex<[Int: Result<Mapped, any Error>]>([:])
        let next = Atomic<Int>(0)
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, (elements.count + batch - 1) / batch)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var local: [(Int, Result<Mapped, any Error>)] = []
            while true {
                let start = next.add(batch, ordering: .relaxed).oldValue
                guard start < elements.count else { break }
                for index in start..<min(start + batch, elements.count) {
                    local.append((index, Result { try transform(elements[index]) }))
                }
            }
            results.withLock { all in for (index, result) in local { all[index] = result } }
        }
        let all = results.withLock { $0 }
        return try (0..<elements.count).map { try all[$0]!.get() }
    }
}
