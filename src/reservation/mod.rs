//! Reservations.
