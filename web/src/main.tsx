import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setUnauthorizedHandler, storedKey, storeKey, type Usage } from './api.js';
import { BASE, linkClick, navigate, usePath } from './router.js';
import { SignIn } from './pages/SignIn.js';
import { TemplatesPage } from './pages/Templates.js';
import { TemplatePage } from './pages/TemplateDetail.js';
import { RendersPage } from './pages/Renders.js';
import { UsagePage } from './pages/Usage.js';
import { ApiKeysPage } from './pages/ApiKeys.js';
import { WebhooksPage } from './pages/Webhooks.js';
import { AccountPage } from './pages/Account.js';
import { CertificatesPage } from './pages/Certificates.js';

const NAV = [
  { href: '/templates', label: 'Templates' },
  { href: '/renders', label: 'Renders' },
  { href: '/usage', label: 'Usage' },
  { href: '/api-keys', label: 'API keys' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/account', label: 'Account' },
  { href: '/certificates', label: 'Certificates' },
];

function App() {
  const [key, setKey] = useState(storedKey());
  const [notice, setNotice] = useState<string | null>(null);
  const [plan, setPlan] = useState<string | null>(null);
  const path = usePath();

  useEffect(() => {
    setUnauthorizedHandler(() => {
      storeKey(null);
      setKey(null);
      setNotice('Your API key is no longer valid (revoked?). Sign in again.');
    });
  }, []);
  useEffect(() => {
    if (key)
      api.get<{ data: Usage }>('/renders/usage').then(
        (u) => setPlan(u.data.plan),
        () => {},
      );
  }, [key]);

  if (!key) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(k, p) => {
          storeKey(k);
          setPlan(p);
          setNotice(null);
          setKey(k);
          if (path === '/') navigate(`${BASE}/templates`, true);
        }}
      />
    );
  }
  const signOut = () => {
    storeKey(null);
    setKey(null);
    setNotice('Signed out. The key was kept for this tab only and is now forgotten.');
  };
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={`${BASE}/templates`} onClick={linkClick}>
          formcast
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => {
              const current =
                path === n.href || path.startsWith(`${n.href}/`) || (path === '/' && n.href === '/templates');
              return (
                <li key={n.href}>
                  <a href={BASE + n.href} onClick={linkClick} aria-current={current ? 'page' : undefined}>
                    {n.label}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
        <div class="account">
          {plan && <span class="badge">{plan} plan</span>}
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Route path={path} />
      </main>
    </div>
  );
}

function Route({ path }: { path: string }) {
  const template = /^\/templates\/([^/]+)$/.exec(path);
  if (template) return <TemplatePage id={decodeURIComponent(template[1])} />;
  switch (path) {
    case '/':
    case '/templates':
      return <TemplatesPage />;
    case '/renders':
      return <RendersPage />;
    case '/usage':
      return <UsagePage />;
    case '/api-keys':
      return <ApiKeysPage />;
    case '/webhooks':
      return <WebhooksPage />;
    case '/account':
      return <AccountPage />;
    case '/certificates':
      return <CertificatesPage />;
    default:
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            <a href={`${BASE}/templates`} onClick={linkClick}>
              Back to templates
            </a>
          </p>
        </section>
      );
  }
}

render(<App />, document.getElementById('root')!);
