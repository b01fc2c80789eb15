/// Every op a replica has applied, in the order it applied them (a causal order), indexed per
/// replica so that the ops another replica lacks are found without a scan of the whole log.
///
/// - Complexity: `append` is O(1) amortized; `ops(missingFrom:)` is O(r log n + k log k) for k ops
///   returned from r replicas.
struct OpLog {
    private(set) var ops: [Op] = []
    /// Log positions of each replica's ops (by replica index), in increasing counter order.
    private var positions: [[Int32]] = []

    var count: Int { ops.count }

    mutating func append(_ op: Op, replicaIndex: Int) {
        while positions.count <= replicaIndex { positions.append([]) }
        positions[replicaIndex].append(Int32(ops.count))
        ops.append(op)
    }

    /// The ops not included in `version`, in log order, so that dependencies come first.
    func ops(missingFrom version: VersionVector, replicas: ReplicaTable) -> [Op] {
        var selected: [Int32] = []
        for (index, list) in positions.enumerated() where !list.isEmpty {
            let known = version[replicas.ids[index]]
            var low = 0
            var high = list.count
            while low < high {
                let mid = (low + high) / 2
                if ops[Int(list[mid])].id.counter <= known { low = mid + 1 } else { high = mid }
            }
            selected += list[low...]
        }
        selected.sort()
        return selected.map { ops[Int($0)] }
    }
}
