//! SKELETON: loss models.
