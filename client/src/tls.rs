//! TLS for `https://` and `wss://` servers: rustls with the *ring* provider, trusting the
//! system's root certificates and any the user gives.

use std::sync::Arc;

use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

use crate::Error;

/// The certificates of a PEM file's bytes.
pub(crate) fn certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, Error> {
    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Tls(format!("not a PEM certificate file: {e}")))?;
    if certificates.is_empty() {
        return Err(Error::Tls("the file holds no PEM certificate".into()));
    }
    Ok(certificates)
}

/// A client configuration trusting the system's roots and `extra`.
pub(crate) fn config(extra: &[CertificateDer<'static>]) -> Result<Arc<ClientConfig>, Error> {
    let mut roots = RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for error in &native.errors {
        tracing::warn!("system root certificates: {error}");
    }
    // A system certificate rustls cannot use is skipped, as browsers do.
    let (added, ignored) = roots.add_parsable_certificates(native.certs);
    tracing::debug!(added, ignored, "system root certificates");
    for certificate in extra {
        roots
            .add(certificate.clone())
            .map_err(|e| Error::Tls(format!("a given certificate cannot be trusted: {e}")))?;
    }
    if roots.is_empty() {
        return Err(Error::Tls(
            "no root certificate to trust: install the system's (ca-certificates) or give one"
                .into(),
        ));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_files_are_read_or_refused() {
        assert!(matches!(certificates(b"nothing here"), Err(Error::Tls(_))));
        let pem = b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n";
        assert!(matches!(certificates(pem), Err(Error::Tls(_))));
    }
}
