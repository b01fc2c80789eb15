/// Galleries renamed and deleted: a gallery's identity is the name its creation carried (every op
/// names it so), and what people see is its register's title, if any (docs/design.md, "Galleries
/// renamed and deleted"). Local commands and queries take the names people see; ops carry identities.
extension Replica {
    /// The index of the gallery shown under `name`; nil when no gallery shown has that name.
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)
    func shownGallery(_ name: String) -> Int32? {
        galleryRegisters.isEmpty ? galleryLookup(name) : shownIndex[name]
    }

    /// The name a gallery is shown under, or, for a deleted one, the name it was shown under.
    /// Two galleries given one name concurrently are told apart: the one whose identity is that
    /// name, else the smaller identity, keeps it; each other one is shown as `NAME (IDENTITY)`.
    func shownName(_ gallery: Int32) -> String {
        guard let register = galleryRegisters[gallery] else { return galleryNames[Int(gallery)] }
        if !register.isDeleted, let shown = shownNames[gallery] { return shown }
        return register.title ?? galleryNames[Int(gallery)]
    }

    /// Whether the gallery is deleted (its items are in the Trash).
    @inline(__always)
    func isGalleryDeleted(_ gallery: Int32) -> Bool {
        galleryRegisters.isEmpty ? false : galleryRegisters[gallery]?.isDeleted == true
    }

    /// Whether a gallery of this identity exists here, shown or not (renamed, deleted).
    package func knowsGallery(identity name: String) -> Bool {
        galleryLookup(name) != nil
    }

    /// The name the gallery of this identity is shown under, or had when it was deleted, and
    /// whether it is deleted; nil for an unknown identity.
    package func shownName(ofIdentity name: String) -> (name: String, isDeleted: Bool)? {
        guard let gallery = galleryLookup(name) else { return nil }
        return (shownName(gallery), isGalleryDeleted(gallery))
    }

    /// The identity of the gallery shown under `name` (what its ops carry), nil when none is.
    package func galleryIdentity(of name: String) -> String? {
        shownGallery(name).map { galleryNames[Int($0)] }
    }

    /// The op that last renamed or deleted the gallery of this identity (its liveness register),
    /// nil when none did: what an undo checks before bringing the earlier state back.
    package func lastRenameOrDelete(ofIdentity name: String) -> OpID? {
        guard let index = galleryLookup(name), let stamp = galleryRegisters[index]?.liveStamp else { return nil }
        return table.unpack(stamp)
    }

    /// Gives the gallery shown as `name` the new name `newName`.
    ///
    /// - Throws: `.unknownGallery`, `.invalidGalleryName`, or `.galleryNameTaken` when another
    ///   gallery is shown under `newName` or has it as its identity (creating it would bring that
    ///   one back).
    @discardableResult
    package mutating func renameGallery(_ name: String, to newName: String) throws(ModelError) -> Op {
        try Self.validateGalleryName(newName)
        guard let gallery = shownGallery(name) else { throw .unknownGallery(name) }
        if let other = shownGallery(newName), other != gallery { throw .galleryNameTaken(newName) }
        if let other = galleryLookup(newName), other != gallery { throw .galleryNameTaken(newName) }
        return try stamp(.renameGallery(name: galleryNames[Int(gallery)], to: newName))
    }

    /// Deletes the gallery shown as `name`: it is no longer shown and its items are in the Trash
    /// (a use case moves them there explicitly too, so that each keeps its own time in the Trash).
    @discardableResult
    package mutating func deleteGallery(_ name: String) throws(ModelError) -> Op {
        guard let gallery = shownGallery(name) else { throw .unknownGallery(name) }
        return try stamp(.deleteGallery(name: galleryNames[Int(gallery)]))
    }

    /// Brings back the deleted gallery of this identity under the name it was shown under, or
    /// under its identity when another gallery is shown under that name now.
    @discardableResult
    package mutating func reviveGallery(identity name: String) throws(ModelError) -> Op {
        guard let gallery = galleryLookup(name) else { throw .unknownGallery(name) }
        var title = galleryRegisters[gallery]?.title ?? name
        if let other = shownGallery(title), other != gallery { title = name }
        return try stamp(.renameGallery(name: name, to: title))
    }

    // MARK: Applying

    /// Applies `renameGallery` (op `key`): the title and the liveness registers, each if newer.
    mutating func applyRename(_ name: String, to title: String, key: PackedID) {
        let gallery = gallery(named: name)
        var register = galleryRegisters[gallery] ?? GalleryRegister()
        if register.titleStamp.map({ lamportPrecedes($0, key) }) ?? true {
            register.titleStamp = key
            register.title = title == name ? nil : title
        }
        if register.liveStamp.map({ lamportPrecedes($0, key) }) ?? true {
            register.liveStamp = key
            register.isDeleted = false
        }
        galleryRegisters[gallery] = register
        refreshShownGalleries()
    }

    /// Applies `deleteGallery` (op `key`): the liveness register, if newer.
    mutating func applyGalleryDelete(_ name: String, key: PackedID) {
        let gallery = gallery(named: name)
        var register = galleryRegisters[gallery] ?? GalleryRegister()
        if register.liveStamp.map({ lamportPrecedes($0, key) }) ?? true {
            register.liveStamp = key
            register.isDeleted = true
        }
        galleryRegisters[gallery] = register
        refreshShownGalleries()
    }

    /// Rebuilds the names galleries are shown under, a function of the registers alone.
    ///
    /// - Complexity: O(g log g) for g galleries; it runs when a gallery is created, renamed or
    ///   deleted once some gallery was renamed or deleted.
    mutating func refreshShownGalleries() {
        shownIndex = [:]
        shownNames = [:]
        guard !galleryRegisters.isEmpty else { return }
        var groups: [String: [Int32]] = [:]
        for index in galleryNames.indices {
            let register = galleryRegisters[Int32(index)]
            if register?.isDeleted == true { continue }
            groups[register?.title ?? galleryNames[index], default: []].append(Int32(index))
        }
        var taken: [(String, Int32)] = []
        for (title, members) in groups.sorted(by: { $0.key < $1.key }) {
            let ordered = members.sorted { a, b in
                let (nameA, nameB) = (galleryNames[Int(a)], galleryNames[Int(b)])
                return (nameA == title ? 0 : 1, nameA) < (nameB == title ? 0 : 1, nameB)
            }
            taken.append((title, ordered[0]))
            for other in ordered.dropFirst() { taken.append(("\(title) (\(galleryNames[Int(other)]))", other)) }
        }
        for (name, gallery) in taken where shownIndex[name] == nil {
            shownIndex[name] = gallery
            shownNames[gallery] = name
        }
    }
}
