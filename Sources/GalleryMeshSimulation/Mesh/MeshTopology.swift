import GallerySimulation

/// Who dials whom in a simulated mesh. Every topology is connected.
package enum MeshTopology: String, Sendable, CaseIterable {
    /// A ring plus random chords: about `degree` links per node.
    case random
    /// Each node dials the next: two links per node, diameter n/2.
    case ring
    /// Every node dials node 0.
    case star
    /// A random tree: each node dials one random earlier node (n-1 links).
    case sparse

    /// The peers each node dials, by node index (an edge appears once, on the dialer).
    package func dials(nodes: Int, degree: Int, using random: inout SeededGenerator) -> [[Int]] {
        var dials = Array(repeating: [Int](), count: nodes)
        guard nodes > 1 else { return dials }
        switch self {
        case .ring:
            for index in 0..<nodes where nodes > 2 || index == 0 { dials[index].append((index + 1) % nodes) }
        case .star:
            for index in 1..<nodes { dials[index].append(0) }
        case .sparse:
            for index in 1..<nodes { dials[index].append(Int.random(in: 0..<index, using: &random)) }
        case .random:
            var edges = Set<[Int]>()
            for index in 0..<nodes where nodes > 2 || index == 0 {
                edges.insert([index, (index + 1) % nodes].sorted())
                dials[index].append((index + 1) % nodes)
            }
            let chords = max(0, degree - 2) * nodes / 2
            var attempts = 0
            while edges.count < nodes + chords && attempts < chords * 10 {
                attempts += 1
                let a = Int.random(in: 0..<nodes, using: &random)
                let b = Int.random(in: 0..<nodes, using: &random)
                guard a != b, edges.insert([a, b].sorted()).inserted else { continue }
                dials[a].append(b)
            }
        }
        return dials
    }
}
