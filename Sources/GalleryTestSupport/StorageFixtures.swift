import Foundation
import GalleryModel
import GallerySimulation

/// Helpers for the storage tests: scratch directories and seeded op workloads.
package enum StorageFixtures {
    /// Runs `body` with a new empty directory that is removed afterwards.
    package static func withScratchDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("gallery-storage-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    /// The bytes of a file.
    package static func contents(_ url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    /// Replaces a file's bytes.
    package static func write(_ bytes: [UInt8], to url: URL) throws {
        try Data(bytes).write(to: url)
    }

    /// `count` seeded random bytes.
    package static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where index < count {
                bytes[index] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                index += 1
            }
        }
        return bytes
    }

    /// Three replicas editing concurrently with every kind of op and every field type, merged into
    /// the first: returns its log (at least `count` ops) and the replica itself.
    package static func workload(count: Int, seed: UInt64) -> (ops: [Op], replica: Replica) {
        var generator = SeededGenerator(seed: seed)
        var replicas = [Replica(id: ReplicaID(0xA1)), Replica(id: ReplicaID(0xB2)), Replica(id: ReplicaID(0xC3))]
        _ = try? replicas[0].createGallery("g0")
        for index in 1..<3 { for op in replicas[0].ops { replicas[index].receive(op) } }

        func randomItem(_ replica: Replica) -> Item? {
            let galleries = replica.galleries.filter { ((try? replica.count(in: $0)) ?? 0) > 0 }
            guard let gallery = galleries.randomElement(using: &generator),
                  let items = try? replica.items(in: gallery) else { return nil }
            return items.randomElement(using: &generator)
        }
        func randomValue(for field: ItemField) -> FieldValue {
            if Int.random(in: 0..<8, using: &generator) == 0 { return .none }
            switch field {
            case .title, .url, .mediaType: return .text("v\(generator.next() % 1000) ünï")
            case .contentHash: return .text(String(repeating: "ab", count: 32))
            case .aspectRatio: return .number(Double(generator.next() % 1000) / 7)
            case .byteSize: return .integer(Int64(generator.next() % 100_000) - 50)
            case .origin: return .id(OpID(counter: generator.next() % 500 + 1, replica: ReplicaID(0xB2)))
            case .trashed: return .integer(Int64(generator.next() % 1_000_000))
            }
        }

        while replicas[0].opCount < count {
            let index = Int.random(in: 0..<3, using: &generator)
            var replica = replicas[index]
            let gallery = replica.galleries.randomElement(using: &generator) ?? "g0"
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<3:
                let name = "g\(Int.random(in: 0..<4, using: &generator))"
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: _ = try? replica.renameGallery(gallery, to: name)
                case 1 where replica.galleries.count > 1: _ = try? replica.deleteGallery(gallery)
                default: _ = try? replica.createGallery(name)
                }
            case 3..<33:
                let drafts = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                    var fields: [ItemField: FieldValue] = [.title: .text("t\(generator.next() % 1000)")]
                    for field in ItemField.allCases where field != .trashed && Bool.random(using: &generator) && field != .title {
                        fields[field] = randomValue(for: field)
                    }
                    return ItemDraft(isPlaceholder: Bool.random(using: &generator), fields: fields)
                }
                let size = (try? replica.count(in: gallery)) ?? 0
                _ = try? replica.insert(drafts, into: gallery, at: Int.random(in: 0...size, using: &generator))
            case 33..<48:
                if let item = randomItem(replica) {
                    let size = (try? replica.count(in: gallery)) ?? 0
                    _ = try? replica.move(item.id, to: gallery, at: Int.random(in: 0...size, using: &generator))
                }
            case 48..<55:
                if let item = randomItem(replica) { _ = try? replica.delete(item.id) }
            case 55..<80:
                if let item = randomItem(replica), let field = ItemField.allCases.randomElement(using: &generator) {
                    _ = try? replica.update(item.id, field, to: randomValue(for: field))
                }
            case 80..<90:
                if let item = randomItem(replica), item.state == .placeholder { _ = try? replica.commit(item.id) }
            default:
                let other = replicas[Int.random(in: 0..<3, using: &generator)]
                for op in other.ops(missingFrom: replica.version) { replica.receive(op) }
            }
            replicas[index] = replica
            if index != 0, Int.random(in: 0..<4, using: &generator) == 0 {
                for op in replica.ops(missingFrom: replicas[0].version) { replicas[0].receive(op) }
            }
        }
        for index in 1..<3 {
            for op in replicas[index].ops(missingFrom: replicas[0].version) { replicas[0].receive(op) }
        }
        return (replicas[0].ops, replicas[0])
    }

    /// What a replica shows, for comparing two replicas.
    package static func view(_ replica: Replica) -> [String: [Item]] {
        var view: [String: [Item]] = [:]
        for gallery in replica.galleries { view[gallery] = try? replica.items(in: gallery) }
        return view
    }
}
